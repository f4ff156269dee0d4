//! Charts of a report, drawn with plotters as SVG and PNG: recall@k curves per row (with the
//! published numbers as hollow markers) and search latency bars. The font (DejaVu Sans) is
//! compiled in, so charts look the same on every machine.

use std::path::Path;
use std::sync::Once;

use plotters::coord::Shift;
use plotters::prelude::*;
use strata_core::{Error, Result};

use crate::run::Report;

const SIZE: (u32, u32) = (960, 560);
const FONT: &str = "sans-serif";

static FONTS: Once = Once::new();

fn register_fonts() {
    FONTS.call_once(|| {
        // DejaVu is a valid font; failure would only lose the text of the charts.
        let _ = plotters::style::register_font(FONT, FontStyle::Normal, dejavu::sans::regular());
        let _ = plotters::style::register_font(FONT, FontStyle::Bold, dejavu::sans::bold());
    });
}

/// Colours for rows, in order.
fn colour(i: usize) -> RGBColor {
    const PALETTE: [RGBColor; 10] = [
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
    ];
    PALETTE[i % PALETTE.len()]
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
    let max_k = *report.ks.last().unwrap_or(&20) as f64;
    let mut chart = ChartBuilder::on(&area)
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
        chart
            .draw_series(LineSeries::new(points.clone(), c.stroke_width(2)))
            .map_err(draw_error)?
            .label(format!("{} · {}", row.strategy, row.ingest))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], c.stroke_width(2)));
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
            .draw_series(points.iter().map(|p| TriangleMarker::new(*p, 6, c.stroke_width(2))))
            .map_err(draw_error)?
            .label(format!("published: {system}"))
            .legend(move |(x, y)| TriangleMarker::new((x + 9, y), 5, c.stroke_width(2)));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .label_font((FONT, 13))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.3))
        .draw()
        .map_err(draw_error)?;
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
