#!/usr/bin/env python3
"""Interop check of strata's MCP server with the official Python MCP SDK (mcp==2.3.0) as client.

What it checks, and why: strata's MCP server is built on the Rust SDK (rmcp), and the Rust tests
talk to it with rmcp too, so a wire-level mismatch with other SDKs (protocol version
negotiation, SSE framing, session handling, the shape of tool results) would pass unnoticed.
Here an independent client drives it, over the transport given by --transport:

  stdio  spawns `strata --index IDX mcp` (what a desktop agent does);
  http   connects to `strata serve`'s streamable HTTP endpoint with the bearer key, and checks
         that /mcp refuses a request without the key (401) or with a foreign Host (403).

Each transport is exercised twice: with the initialize handshake (ClientSession.initialize(),
protocol 2025-11-25, what most agents speak today) and with the SDK's default `Client`
(mode "auto": server/discover, falling back to initialize). Each run does initialize,
tools/list (the 7 tools, each with an object inputSchema), resources/list (the document),
resources/read (the document and one section through the template), then a tools/call of every
tool with real arguments on the ingested census title (USC title 13):

  list_documents -> the doc id (from structuredContent); outline -> the node of "§9. Information
  as confidential; exception" and of §8; read_section §9; read_pages "1" (a tool error: the
  Word file records no page breaks); define "Bureau";
  follow_reference §9 (list, then target "section 8" -> §8); search "confidentiality of census
  information" (the §9 section among the top hits) and a search with mode/k/doc/budget.

No call may come back with isError, except two deliberate bad calls (read_section of a node
that does not exist, and read_pages of a document without pages), each of which must be a tool
result with isError true and a message naming the node or the tools to read it by, not a
protocol error. Every successful result must carry text content and structuredContent
(a JSON object up to protocol 2025-11-25, any JSON value from 2026-07-28). A WARN line notes a
problem that does not fail the check (SDK warnings are turned into WARN lines too). Prints one
summary line per transport and protocol.

Usage: mcp-client-check.py --transport stdio --bin STRATA --index IDX [--stdio-log FILE]
       mcp-client-check.py --transport http --url http://127.0.0.1:PORT/mcp --key KEY
Run by scripts/serve-checks.sh.
"""

import argparse
import contextlib
import json
import logging
import os
import sys
import time
from typing import Any

import anyio
import httpx2
from mcp import Client, ClientSession, MCPError, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

TOOLS = {"search", "outline", "read_section", "read_pages", "define", "follow_reference", "list_documents"}
DOC_FILE = "usc-title13-census-converted.docx"
SECTION_9 = "§9. Information as confidential; exception"
SECTION_8 = "§8. Authenticated transcripts"
MISSING_NODE = "9999"
TIMEOUT_S = 60.0


class Run:
    """The failures, warnings and call counts of one transport × protocol run."""

    def __init__(self, label: str):
        self.label = label
        self.failures: list[str] = []
        self.warnings: list[str] = []
        self.calls = 0
        self.errors_expected = 0
        self.version = "?"

    def check(self, ok: bool, what: str) -> bool:
        if not ok:
            self.failures.append(what)
            print(f"  FAIL [{self.label}]: {what}")
        return ok

    def warn(self, what: str) -> None:
        self.warnings.append(what)
        print(f"  WARN [{self.label}]: {what}")


def texts(result) -> list[str]:
    return [c.text for c in result.content if getattr(c, "type", None) == "text"]


def short(value: Any, n: int = 300) -> str:
    s = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return s if len(s) <= n else s[:n] + "…"


async def call(run: Run, session: ClientSession, name: str, args: dict[str, Any]) -> Any:
    """tools/call that must succeed: returns the structured content (None when missing)."""
    run.calls += 1
    what = f"tools/call {name} {short(args, 120)}"
    try:
        result = await session.call_tool(name, args, read_timeout_seconds=TIMEOUT_S)
    except MCPError as e:
        run.check(False, f"{what}: protocol error {e.error.code}: {e.error.message}")
        return None
    if not run.check(not result.is_error, f"{what}: isError true: {short(' | '.join(texts(result)))}"):
        return None
    run.check(any(t.strip() for t in texts(result)), f"{what}: no text content")
    structured = result.structured_content
    if structured is None:
        # Before 2026-07-28 rmcp drops a structured result that is not a JSON object and puts it
        # into content[0] as JSON text instead; read it from there so the later calls still run.
        parsed = None
        for t in texts(result):
            try:
                parsed = json.loads(t)
                break
            except ValueError:
                pass
        hint = (
            (
                f"; content[0] is JSON {type(parsed).__name__}: the server returned a non-object, "
                f"which protocol {run.version} does not allow"
            )
            if parsed is not None
            else ""
        )
        run.check(False, f"{what}: no structuredContent{hint} (content: {short(' | '.join(texts(result)), 160)})")
        return parsed
    if run.version in HANDSHAKE_PROTOCOL_VERSIONS:
        run.check(
            isinstance(structured, dict),
            f"{what}: structuredContent is a {type(structured).__name__}, "
            f"protocol {run.version} defines it as a JSON object",
        )
    return structured


def find_node(tree: dict, title_prefix: str) -> dict | None:
    stack = [tree]
    while stack:
        node = stack.pop()
        if str(node.get("title", "")).startswith(title_prefix):
            return node
        stack.extend(reversed(node.get("children", [])))
    return None


def as_list(value: Any, key: str) -> list:
    """A list result, bare or wrapped in an object under `key` (or the only list in it)."""
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        if isinstance(value.get(key), list):
            return value[key]
        lists = [v for v in value.values() if isinstance(v, list)]
        if len(lists) == 1:
            return lists[0]
    return []


async def exercise(run: Run, session: ClientSession) -> None:
    """The whole scenario on an initialized session."""
    info = session.server_info
    run.check(info is not None and info.name == "strata", f"serverInfo: want name strata, got {info}")
    caps = session.server_capabilities
    run.check(
        caps is not None and caps.tools is not None and caps.resources is not None,
        f"capabilities: want tools and resources, got {caps}",
    )

    # tools/list
    tools = (await session.list_tools()).tools
    names = {t.name for t in tools}
    run.check(names == TOOLS, f"tools/list: want {sorted(TOOLS)}, got {sorted(names)}")
    for t in tools:
        schema = t.input_schema
        run.check(
            isinstance(schema, dict) and schema.get("type") == "object",
            f"tool {t.name}: inputSchema is not an object schema: {short(schema)}",
        )
        run.check(bool(t.description), f"tool {t.name}: no description")
    required = {t.name: set((t.input_schema or {}).get("required", [])) for t in tools}
    run.check(required.get("search") == {"query"}, f"search: required args {required.get('search')}")
    run.check(required.get("read_section") == {"doc", "node"}, f"read_section: required {required.get('read_section')}")

    # resources/list and resources/read
    resources = (await session.list_resources()).resources
    ours = [r for r in resources if "usc-title13-census-converted" in str(r.uri)]
    run.check(len(ours) == 1, f"resources/list: want the census document once, got {[str(r.uri) for r in resources]}")
    if ours:
        read = await session.read_resource(ours[0].uri)
        body = "".join(getattr(c, "text", "") or "" for c in read.contents)
        run.check(SECTION_9 in body, f"resources/read {ours[0].uri}: {len(body)} chars without {SECTION_9!r}")
    templates = (await session.list_resource_templates()).resource_templates
    run.check(
        any(t.uri_template == "strata://documents/{doc}/sections/{node}" for t in templates),
        f"resources/templates/list: {[t.uri_template for t in templates]}",
    )

    # list_documents -> doc id
    docs = as_list(await call(run, session, "list_documents", {}), "documents")
    ours_doc = [d for d in docs if isinstance(d, dict) and str(d.get("path", "")).endswith(DOC_FILE)]
    if not run.check(len(ours_doc) == 1, f"list_documents: want {DOC_FILE} once, got {short(docs)}"):
        return
    doc = ours_doc[0]["id"]
    if ours:
        run.check(
            str(ours[0].uri) == f"strata://documents/{doc}",
            f"resource uri {ours[0].uri} does not name list_documents' id {doc}",
        )

    # outline -> §9 and §8 node ids
    tree = await call(run, session, "outline", {"doc": doc}) or {}
    s9, s8 = find_node(tree, SECTION_9), find_node(tree, SECTION_8)
    if not run.check(s9 is not None and s8 is not None, f"outline: no §9/§8 node in {short(tree)}"):
        return
    node9, node8 = s9["id"], s8["id"]
    shallow = await call(run, session, "outline", {"doc": doc, "depth": 1}) or {}
    run.check(
        all(not c.get("children") for c in shallow.get("children", [])),
        f"outline depth 1: nested children in {short(shallow)}",
    )

    # the section template
    read = await session.read_resource(f"strata://documents/{doc}/sections/{node9}")
    body = "".join(getattr(c, "text", "") or "" for c in read.contents)
    run.check(body.startswith(SECTION_9), f"resources/read section {node9}: starts {short(body, 80)!r}")

    # read_section
    section = await call(run, session, "read_section", {"doc": doc, "node": node9}) or {}
    run.check(
        section.get("node_id") == node9
        and SECTION_9 in (section.get("heading_path") or [""])[-1:]
        and "(a) Neither the Secretary" in section.get("text", ""),
        f"read_section {node9}: not §9: {short(section)}",
    )
    by_number = await call(run, session, "read_section", {"doc": doc, "node": "9"}) or {}
    run.check(
        by_number.get("node_id") == node9, f"read_section by section number 9: got node {by_number.get('node_id')}"
    )

    # read_pages: the census title is a Word file that records no page breaks, so it has no
    # page 1 to read; the tool error says which tools read it instead.
    await expect_tool_error(
        run, session, "read_pages", {"doc": doc, "pages": "1"}, ["has no pages", "read_section"]
    )

    # define
    found = as_list(await call(run, session, "define", {"term": "Bureau"}), "definitions")
    bureau = [d for d in found if isinstance(d, dict) and d.get("term") == "Bureau"]
    run.check(
        len(bureau) == 1 and "Bureau of the Census" in bureau[0].get("text", ""), f"define Bureau: {short(found)}"
    )
    if bureau:
        await node_round_trip(run, session, doc, bureau[0].get("node_id"), "§1. Definitions", "define Bureau's node")
    scoped = as_list(await call(run, session, "define", {"term": "Bureau", "doc": doc}), "definitions")
    run.check(len(scoped) == 1, f"define Bureau in {doc}: {short(scoped)}")

    # follow_reference: list, then follow "section 8"
    refs = await call(run, session, "follow_reference", {"doc": doc, "node": node9}) or {}
    outgoing = refs.get("outgoing", [])
    to8 = [r for r in outgoing if r.get("raw") == "section 8"]
    run.check(
        len(outgoing) > 5 and to8,
        f"follow_reference {node9}: {len(outgoing)} outgoing, 'section 8' among them: {bool(to8)}",
    )
    followed = await call(run, session, "follow_reference", {"doc": doc, "node": node9, "target": "section 8"}) or {}
    run.check(
        followed.get("node_id") == node8,
        f"follow_reference target 'section 8': want node {node8}, got {short(followed)}",
    )
    if to8:
        await node_round_trip(
            run, session, doc, to8[0].get("to_node_id"), SECTION_8, "follow_reference's 'resolved' of 'section 8'"
        )

    # search
    query = "confidentiality of census information"
    found = await call(run, session, "search", {"query": query}) or {}
    hits = found.get("hits", [])
    top = [h for h in hits[:3] if SECTION_9 in h.get("heading_path", [])]
    seen = [(h.get("node_id"), h.get("heading_path", [])[-1:]) for h in hits[:5]]
    run.check(
        bool(top) and any(h.get("node_id") == node9 for h in hits[:3]),
        f"search {query!r}: §9 ({node9}) not in the top 3: {seen}",
    )
    narrow = (
        await call(
            run,
            session,
            "search",
            {"query": "Bureau of the Census", "mode": "keyword", "k": 3, "doc": doc, "budget": 500},
        )
        or {}
    )
    nhits = narrow.get("hits", [])
    run.check(
        0 < len(nhits) <= 3 and all(h.get("doc_id") == doc for h in nhits),
        f"search keyword k=3 doc={doc}: {len(nhits)} hits {short(nhits, 200)}",
    )
    tokens = (narrow.get("context") or {}).get("tokens")
    run.check(tokens is None or tokens <= 500, f"search budget 500: context_tokens {tokens}")

    # the deliberate bad call: a tool error the model can read, not a protocol error
    run.calls += 1
    try:
        bad = await session.call_tool(
            "read_section", {"doc": doc, "node": MISSING_NODE}, read_timeout_seconds=TIMEOUT_S
        )
    except MCPError as e:
        run.check(
            False,
            f"read_section node {MISSING_NODE}: protocol error {e.error.code} {e.error.message}, want a tool error",
        )
    else:
        message = " ".join(texts(bad))
        if run.check(bad.is_error, f"read_section node {MISSING_NODE}: want isError true, got {short(message)}"):
            run.errors_expected += 1
            run.check(
                MISSING_NODE in message and "node" in message,
                f"read_section node {MISSING_NODE}: the message does not name the node: {message!r}",
            )
            if "strata " in message and "outline" not in message:
                run.warn(f"the error for a missing node points an MCP client at the CLI, not at outline: {message!r}")


async def expect_tool_error(run: Run, session: ClientSession, tool: str, args: dict, words: list) -> None:
    """A call that must come back as a tool result with isError true whose message holds `words`."""
    run.calls += 1
    try:
        result = await session.call_tool(tool, args, read_timeout_seconds=TIMEOUT_S)
    except MCPError as e:
        run.check(False, f"{tool} {args}: protocol error {e.error.code} {e.error.message}, want a tool error")
        return
    message = " ".join(texts(result))
    if run.check(result.is_error, f"{tool} {args}: want isError true, got {short(message)}"):
        run.errors_expected += 1
        run.check(all(w in message for w in words), f"{tool} {args}: the message lacks {words}: {message!r}")


async def node_round_trip(run: Run, session: ClientSession, doc: str, node: Any, want: str, what: str) -> None:
    """A node named in structured content must read back as that node through read_section."""
    if node is None:
        run.check(False, f"{what}: no node")
        return
    run.calls += 1
    result = await session.call_tool("read_section", {"doc": doc, "node": str(node)}, read_timeout_seconds=TIMEOUT_S)
    got = (result.structured_content or {}).get("heading_path", ["?"])[-1] if not result.is_error else "an error"
    if not got.startswith(want):
        run.warn(
            f"{what} is {node!r} ({type(node).__name__}); read_section node {str(node)!r} reads "
            f"{got!r}, not {want!r} (node ids are strings like '0045' elsewhere)"
        )


async def handshake(streams, stack: contextlib.AsyncExitStack) -> ClientSession:
    """A ClientSession on `streams`, after the initialize handshake (protocol 2025-11-25)."""
    read, write = streams
    session = await stack.enter_async_context(ClientSession(read, write, read_timeout_seconds=TIMEOUT_S))
    await session.initialize()
    return session


async def one(transport: str, mode: str, open_streams) -> Run:
    """One scenario on fresh streams; `mode` handshake or sdk-default (the SDK's Client, mode auto)."""
    run = Run(f"{transport} {mode}")
    SdkWarnings.run = run
    started = time.monotonic()
    try:
        with anyio.fail_after(5 * TIMEOUT_S):
            async with contextlib.AsyncExitStack() as stack:
                if mode == "handshake":
                    session = await handshake(await stack.enter_async_context(open_streams()), stack)
                else:
                    client = await stack.enter_async_context(
                        Client(open_streams(), read_timeout_seconds=TIMEOUT_S, cache=None)
                    )
                    session = client.session
                run.version = session.protocol_version or "?"
                await exercise(run, session)
    except Exception as e:  # noqa: BLE001 - every failure is reported, none crashes the other runs
        run.check(False, f"{type(e).__name__}: {e}")
        if isinstance(e, BaseExceptionGroup):
            for sub in e.exceptions:
                run.check(False, f"  {type(sub).__name__}: {sub}")
    took = time.monotonic() - started
    verdict = (
        "PASS" if not run.failures else f"FAIL ({len(run.failures)} problem{'s' if len(run.failures) != 1 else ''})"
    )
    extra = f", {len(run.warnings)} warnings" if run.warnings else ""
    print(
        f"mcp {transport} ({mode}, protocol {run.version}): {verdict}: {run.calls} tool calls, "
        f"{run.errors_expected} expected tool error{'' if run.errors_expected == 1 else 's'}{extra}, in {took:.1f}s"
    )
    return run


class SdkWarnings(logging.Handler):
    """The SDK's own warnings (a failed session DELETE, a dropped message) as WARN lines of the run."""

    run: Run | None = None

    def emit(self, record: logging.LogRecord) -> None:
        if SdkWarnings.run is not None:
            SdkWarnings.run.warn(f"SDK {record.name}: {record.getMessage()}")


async def http_guards(url: str, key: str) -> Run:
    """The HTTP endpoint's own gates, seen by a plain HTTP client."""
    run = Run("http guards")
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "check", "version": "0"},
        },
    }
    headers = {"Accept": "application/json, text/event-stream"}
    async with httpx2.AsyncClient(timeout=30) as http:
        r = await http.post(url, json=body, headers=headers)
        run.check(r.status_code == 401, f"POST /mcp without a key: want 401, got {r.status_code} {r.text[:200]!r}")
        r = await http.post(
            url, json=body, headers={**headers, "Authorization": f"Bearer {key}", "Host": "evil.example"}
        )
        run.check(
            r.status_code == 403, f"POST /mcp with Host evil.example: want 403, got {r.status_code} {r.text[:200]!r}"
        )
    print(f"mcp http guards: {'PASS' if not run.failures else 'FAIL'}: 401 without a key, 403 for a foreign Host")
    return run


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transport", choices=["stdio", "http"], required=True)
    parser.add_argument("--bin", help="the strata binary (stdio)")
    parser.add_argument("--index", help="the index folder (stdio)")
    parser.add_argument("--stdio-log", help="file for the stdio server's stderr (default: this stderr)")
    parser.add_argument("--url", help="http://127.0.0.1:PORT/mcp (http)")
    parser.add_argument("--key", help="an API key the server accepts (http)")
    args = parser.parse_args()
    sdk_log = logging.getLogger("mcp")
    sdk_log.addHandler(SdkWarnings(logging.WARNING))
    sdk_log.propagate = False

    runs: list[Run] = []
    if args.transport == "stdio":
        if not (args.bin and args.index):
            parser.error("--transport stdio needs --bin and --index")
        env = {"STRATA_DENSE_ENABLED": os.environ.get("STRATA_DENSE_ENABLED", "false")}
        params = StdioServerParameters(command=args.bin, args=["--index", args.index, "mcp"], env=env, cwd=os.getcwd())
        with open(args.stdio_log, "a") if args.stdio_log else contextlib.nullcontext(sys.stderr) as errlog:  # noqa: ASYNC230
            for mode in ("handshake", "sdk-default"):
                runs.append(await one("stdio", mode, lambda: stdio_client(params, errlog=errlog)))
    else:
        if not (args.url and args.key):
            parser.error("--transport http needs --url and --key")
        runs.append(await http_guards(args.url, args.key))
        for mode in ("handshake", "sdk-default"):
            async with create_mcp_http_client(headers={"Authorization": f"Bearer {args.key}"}) as http:
                runs.append(
                    await one("http", mode, lambda http=http: streamable_http_client(args.url, http_client=http))
                )
    return 0 if all(not r.failures for r in runs) else 1


if __name__ == "__main__":
    sys.exit(anyio.run(main))
