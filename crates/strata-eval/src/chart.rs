//! Charts of a report, drawn with plotters as SVG and PNG: recall@k curves per row (with the
//! published numbers as hollow markers) and search latency bars. The font (DejaVu Sans) is
//! compiled in, so charts look the same on every machine.

use std::path::Path;
use std::sync::Once;

use plotters::coord::Shift;
use plotters::prelude::*;
use strata_core::{Error, Result};

use crate::run::Report;

const SIZE: (u32, u32) = (1160, 580);
/// Share of the recall chart's width given to the plot; the legend takes the rest.
const PLOT_SHARE: f64 = 0.62;
const FONT: &str = "sans-serif";

static FONTS: Once = Once::new();

fn register_fonts() {
    FONTS.call_once(|| {
        // DejaVu is a valid font; failure would only lose the text of the charts.
        let _ = plotters::style::register_font(FONT, FontStyle::Normal, dejavu::sans::regular());
        let _ = plotters::style::register_font(FONT, FontStyle::Bold, dejavu::sans::bold());
    });
}

/// Colours for rows, in order (matplotlib's tab10, then the lighter half of tab20).
fn colour(i: usize) -> RGBColor {
    const PALETTE: [RGBColor; 20] = [
        RGBColor(31, 119, 180),
        RGBColor(255, 127, 14),
        RGBColor(44, 160, 44),
        RGBColor(214, 39, 40),
        RGBColor(148, 103, 189),
        RGBColor(140, 86, 75),
        RGBColor(227, 119, 194),
        RGBColor(127, 127, 127),
        RGBColor(188, 189, 34),
        RGBColor(23, 190, 207),
        RGBColor(174, 199, 232),
        RGBColor(255, 187, 120),
        RGBColor(152, 223, 138),
        RGBColor(255, 152, 150),
        RGBColor(197, 176, 213),
        RGBColor(196, 156, 148),
        RGBColor(247, 182, 210),
        RGBColor(199, 199, 199),
        RGBColor(219, 219, 141),
        RGBColor(158, 218, 229),
    ];
    PALETTE[i % PALETTE.len()]
}

/// A legend label cut to fit beside the plot.
fn fit(label: &str) -> String {
    const MAX: usize = 50;
    if label.chars().count() <= MAX {
        label.to_string()
    } else {
        format!("{}…", label.chars().take(MAX - 1).collect::<String>())
    }
}

/// The metric the recall chart plots: span recall for span-gold sets reads like Chroma's,
/// but `recall@k` (share of gold items hit) exists for every set, so it is the one drawn.
const METRIC: &str = "recall";

/// Writes `recall.svg`, `recall.png`, `latency.svg` and `latency.png` into `dir`; returns
/// the file names.
pub fn write(report: &Report, dir: &Path) -> Result<Vec<String>> {
    register_fonts();
    let mut files = Vec::new();
    let svg = dir.join("recall.svg");
    recall_chart(report, SVGBackend::new(&svg, SIZE).into_drawing_area())?;
    let png = dir.join("recall.png");
    recall_chart(report, BitMapBackend::new(&png, SIZE).into_drawing_area())?;
    files.extend(["recall.svg".to_string(), "recall.png".to_string()]);
    let svg = dir.join("latency.svg");
    latency_chart(report, SVGBackend::new(&svg, SIZE).into_drawing_area())?;
    let png = dir.join("latency.png");
    latency_chart(report, BitMapBackend::new(&png, SIZE).into_drawing_area())?;
    files.extend(["latency.svg".to_string(), "latency.png".to_string()]);
    Ok(files)
}

fn draw_error<E: std::fmt::Debug>(e: E) -> Error {
    Error::Internal(format!("drawing a chart: {e:?}"))
}

fn recall_chart<DB: DrawingBackend>(report: &Report, area: DrawingArea<DB, Shift>) -> Result<()>
where
    DB::ErrorType: 'static,
{
    area.fill(&WHITE).map_err(draw_error)?;
    let (plot, legend) = area.split_horizontally((SIZE.0 as f64 * PLOT_SHARE) as u32);
    let mut entries: Vec<(String, RGBColor, bool)> = Vec::new();
    let max_k = *report.ks.last().unwrap_or(&20) as f64;
    let mut chart = ChartBuilder::on(&plot)
        .caption(format!("{}: recall@k", report.dataset), (FONT, 22))
        .margin(16)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(0.0..max_k + 1.0, 0.0..1.0)
        .map_err(draw_error)?;
    chart
        .configure_mesh()
        .x_desc("k (results)")
        .y_desc("recall")
        .label_style((FONT, 14))
        .draw()
        .map_err(draw_error)?;
    let rows = report.rows.iter().filter(|r| r.refused.is_none());
    for (i, row) in rows.enumerate() {
        let points: Vec<(f64, f64)> = report
            .ks
            .iter()
            .filter_map(|k| row.metrics.get(&format!("{METRIC}@{k}")).map(|v| (*k as f64, *v)))
            .collect();
        let c = colour(i);
        chart.draw_series(LineSeries::new(points.clone(), c.stroke_width(2))).map_err(draw_error)?;
        entries.push((format!("{} · {}", row.strategy, row.ingest), c, false));
        chart.draw_series(points.iter().map(|p| Circle::new(*p, 3, c.filled()))).map_err(draw_error)?;
    }
    // Published rows: hollow markers, one colour per system, in a second colour run.
    let mut systems: Vec<&str> = Vec::new();
    for p in &report.published {
        if p.metric.starts_with(&format!("{METRIC}@")) && !systems.contains(&p.system.as_str()) {
            systems.push(&p.system);
        }
    }
    for (j, system) in systems.iter().enumerate() {
        let c = colour(report.rows.len() + j);
        let points: Vec<(f64, f64)> = report
            .published
            .iter()
            .filter(|p| p.system == *system)
            .filter_map(|p| {
                let k: f64 = p.metric.strip_prefix(&format!("{METRIC}@"))?.parse().ok()?;
                Some((k, p.value))
            })
            .collect();
        chart
            .draw_series(points.iter().map(|p| TriangleMarker::new(*p, 6, c.filled())))
            .map_err(draw_error)?;
        entries.push((format!("published: {system}"), c, true));
    }
    // The legend beside the plot, so that it never hides a curve.
    let line = 20i32.min((SIZE.1 as i32 - 60) / entries.len().max(1) as i32);
    for (i, (label, c, published)) in entries.iter().enumerate() {
        let y = 50 + i as i32 * line;
        if *published {
            legend.draw(&TriangleMarker::new((19, y), 5, c.filled())).map_err(draw_error)?;
        } else {
            legend.draw(&PathElement::new(vec![(10, y), (28, y)], c.stroke_width(3))).map_err(draw_error)?;
        }
        let text = Text::new(fit(label), (36, y - 7), (FONT, 13).into_font());
        legend.draw(&text).map_err(draw_error)?;
    }
    area.present().map_err(draw_error)?;
    Ok(())
}

fn latency_chart<DB: DrawingBackend>(report: &Report, area: DrawingArea<DB, Shift>) -> Result<()>
where
    DB::ErrorType: 'static,
{
    area.fill(&WHITE).map_err(draw_error)?;
    let rows: Vec<_> = report.rows.iter().filter(|r| r.latency_ms.contains_key("total")).collect();
    let max = rows.iter().map(|r| r.latency_ms["total"].p95).fold(1.0f64, f64::max) * 1.1;
    let mut chart = ChartBuilder::on(&area)
        .caption(format!("{}: search latency per query (ms)", report.dataset), (FONT, 22))
        .margin(16)
        .x_label_area_size(40)
        .y_label_area_size(230)
        .build_cartesian_2d(0.0..max, (0..rows.len().max(1)).into_segmented())
        .map_err(draw_error)?;
    let labels: Vec<String> = rows.iter().map(|r| format!("{} · {}", r.strategy, r.ingest)).collect();
    chart
        .configure_mesh()
        .disable_y_mesh()
        .x_desc("milliseconds (bar: p50, line: p50 to p95)")
        .y_labels(rows.len().max(1))
        .y_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) => labels.get(*i).cloned().unwrap_or_default(),
            _ => String::new(),
        })
        .label_style((FONT, 13))
        .draw()
        .map_err(draw_error)?;
    for (i, row) in rows.iter().enumerate() {
        let total = &row.latency_ms["total"];
        let c = colour(i);
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(0.0, SegmentValue::Exact(i)), (total.p50, SegmentValue::Exact(i + 1))],
                c.mix(0.8).filled(),
            )))
            .map_err(draw_error)?;
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(total.p50, SegmentValue::CenterOf(i)), (total.p95, SegmentValue::CenterOf(i))],
                BLACK.stroke_width(2),
            )))
            .map_err(draw_error)?;
    }
    area.present().map_err(draw_error)?;
    Ok(())
}
