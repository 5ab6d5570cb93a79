//! The report's figures, drawn with plotters to SVG (inlined in the page and
//! written to `figures/<id>.svg`) and PNG (`figures/<id>.png`).
//!
//! A figure is described as data ([`Plot`]) and drawn by one function
//! generic over the backend, so the SVG and the PNG show the same thing. Text
//! uses DejaVu Sans, compiled in (`assets/fonts`), so drawing needs no system
//! fonts and gives the same pixels on every machine.

use anyhow::{Result, anyhow};
use plotters::coord::Shift;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::prelude::*;
use std::path::Path;
use std::sync::Once;

static FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");
static REGISTER: Once = Once::new();

fn register() {
    REGISTER.call_once(|| {
        // The font is compiled in, so failing to parse it is a build defect.
        plotters::style::register_font("sans-serif", FontStyle::Normal, FONT).unwrap_or_else(|_| panic!("the embedded DejaVu Sans font does not parse"));
    });
}

/// One named series of points.
#[derive(Clone, Debug)]
pub struct Series {
    /// Legend label.
    pub name: String,
    /// Points (x, y).
    pub points: Vec<(f64, f64)>,
}

/// A figure as data.
#[derive(Clone, Debug)]
pub enum Plot {
    /// Lines with markers; `log_y` for a logarithmic y axis.
    Lines {
        /// Panel title.
        title: String,
        /// X axis label.
        x_label: String,
        /// Y axis label.
        y_label: String,
        /// Logarithmic y axis.
        log_y: bool,
        /// The series.
        series: Vec<Series>,
    },
    /// Grouped vertical bars: one group per category, one bar per series.
    Bars {
        /// Panel title.
        title: String,
        /// Y axis label.
        y_label: String,
        /// Category labels (x axis).
        categories: Vec<String>,
        /// (series name, one value per category).
        series: Vec<(String, Vec<Option<f64>>)>,
    },
    /// Horizontal stacked bars of shares (each row sums to 1).
    Stacked {
        /// Panel title.
        title: String,
        /// Names of the parts, in stacking order.
        parts: Vec<String>,
        /// (row label, share of each part).
        rows: Vec<(String, Vec<f64>)>,
    },
    /// Lines with markers on a logarithmic x axis (and y, with `log_y`),
    /// and anchor points (published values) as open markers.
    LogLines {
        /// Panel title.
        title: String,
        /// X axis label.
        x_label: String,
        /// Y axis label.
        y_label: String,
        /// Logarithmic y axis.
        log_y: bool,
        /// The series.
        series: Vec<Series>,
        /// Points drawn without lines (published values).
        anchors: Vec<Series>,
        /// Draw the legend (panels side by side share one).
        legend: bool,
    },
    /// Panels side by side.
    Row(Vec<Plot>),
}

/// The palette: colour-blind friendly (Okabe–Ito).
pub const PALETTE: [RGBColor; 10] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(120, 120, 120),
    RGBColor(240, 228, 66),
    // Enough for the nine parts of the time-per-state bars, none repeated.
    RGBColor(0, 0, 0),
    RGBColor(136, 34, 85),
];

fn colour(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

fn err<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow!("drawing failed: {e:?}")
}

/// The series legend every chart uses: framed, on a translucent white box.
fn series_legend<'a, DB: DrawingBackend + 'a, CT: plotters::coord::CoordTranslate>(
    chart: &mut ChartContext<'a, DB, CT>,
    font: u32,
    opacity: f64,
    at: SeriesLabelPosition,
) -> Result<()> {
    chart.configure_series_labels().label_font(("sans-serif", font)).background_style(WHITE.mix(opacity)).border_style(BLACK).position(at).draw().map_err(err)
}

fn draw<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, plot: &Plot) -> Result<()> {
    match plot {
        Plot::Row(panels) => {
            let parts = area.split_evenly((1, panels.len().max(1)));
            for (a, p) in parts.iter().zip(panels) {
                draw(a, p)?;
            }
            Ok(())
        }
        Plot::Lines { title, x_label, y_label, log_y, series } => lines(area, title, x_label, y_label, *log_y, series),
        Plot::Bars { title, y_label, categories, series } => bars(area, title, y_label, categories, series),
        Plot::Stacked { title, parts, rows } => stacked(area, title, parts, rows),
        Plot::LogLines { title, x_label, y_label, log_y, series, anchors, legend } => {
            log_lines(area, title, x_label, y_label, *log_y, series, anchors, *legend)
        }
    }
}

/// Lines on a logarithmic x axis; anchors as crosses in their own colours.
#[allow(clippy::too_many_arguments)]
fn log_lines<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
    xl: &str,
    yl: &str,
    log_y: bool,
    series: &[Series],
    anchors: &[Series],
    show_legend: bool,
) -> Result<()> {
    let all = || series.iter().chain(anchors).flat_map(|s| s.points.iter().copied());
    let (x0, x1) = range(all().map(|p| p.0).filter(|x| *x > 0.0));
    let mut b = ChartBuilder::on(area);
    b.caption(title, ("sans-serif", 18)).margin(12).x_label_area_size(42).y_label_area_size(70);
    let xs = (x0 / 1.2..x1 * 1.2).log_scale();
    let legend = |c: RGBColor| move |(x, y): (i32, i32)| PathElement::new(vec![(x, y), (x + 18, y)], c.stroke_width(2));
    let open = |c: RGBColor| move |(x, y): (i32, i32)| Cross::new((x + 9, y), 5, c.stroke_width(2));
    macro_rules! body {
        ($chart:expr, $keep:expr) => {{
            let chart = $chart;
            for (i, s) in series.iter().enumerate() {
                let c = colour(i);
                let pts: Vec<(f64, f64)> = s.points.iter().copied().filter($keep).collect();
                chart.draw_series(LineSeries::new(pts.clone(), c.stroke_width(2))).map_err(err)?.label(s.name.as_str()).legend(legend(c));
                chart.draw_series(pts.iter().map(|p| Circle::new(*p, 3, c.filled()))).map_err(err)?;
            }
            for (i, s) in anchors.iter().enumerate() {
                let c = colour(series.len() + i);
                let pts: Vec<(f64, f64)> = s.points.iter().copied().filter($keep).collect();
                chart.draw_series(pts.iter().map(|p| Cross::new(*p, 6, c.stroke_width(2)))).map_err(err)?.label(s.name.as_str()).legend(open(c));
            }
            if show_legend {
                series_legend(chart, 12, 0.85, SeriesLabelPosition::UpperLeft)?;
            }
        }};
    }
    if log_y {
        let (y0, y1) = range(all().map(|p| p.1).filter(|v| *v > 0.0));
        let mut chart = b.build_cartesian_2d(xs, (y0 / 1.5..y1 * 1.5).log_scale()).map_err(err)?;
        line_mesh(&mut chart, xl, yl, &tick)?;
        body!(&mut chart, |p: &(f64, f64)| p.1 > 0.0);
    } else {
        let (y0, y1) = range(all().map(|p| p.1));
        let ypad = (y1 - y0) * 0.08;
        let lo = if y0 >= 0.0 && y0 - ypad < 0.0 { 0.0 } else { y0 - ypad };
        let mut chart = b.build_cartesian_2d(xs, lo..y1 + ypad).map_err(err)?;
        line_mesh(&mut chart, xl, yl, &tick)?;
        body!(&mut chart, |_: &(f64, f64)| true);
    }
    Ok(())
}

/// Axis numbers: whole numbers without decimals, others with up to three.
fn tick(v: &f64) -> String {
    if (v - v.round()).abs() < 1e-9 {
        format!("{:.0}", v.round())
    } else {
        let s = format!("{v:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

fn range(vals: impl Iterator<Item = f64>) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in vals.filter(|v| v.is_finite()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    if lo == hi {
        return (lo - 0.5, hi + 0.5);
    }
    (lo, hi)
}

/// The grid and axis labels of a line chart, linear or logarithmic in x and y.
fn line_mesh<'a, DB: DrawingBackend + 'a, X: Ranged<ValueType = f64> + ValueFormatter<f64>, Y: Ranged<ValueType = f64> + ValueFormatter<f64>>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<X, Y>>,
    xl: &str,
    yl: &str,
    y_format: &dyn Fn(&f64) -> String,
) -> Result<()> {
    chart
        .configure_mesh()
        .x_desc(xl)
        .y_desc(yl)
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 15))
        .light_line_style(RGBColor(238, 238, 238))
        .x_label_formatter(&tick)
        .y_label_formatter(y_format)
        .draw()
        .map_err(err)
}

fn lines<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, title: &str, xl: &str, yl: &str, log_y: bool, series: &[Series]) -> Result<()> {
    let (x0, x1) = range(series.iter().flat_map(|s| s.points.iter().map(|p| p.0)));
    let pad = (x1 - x0) * 0.03;
    let (xr0, xr1) = (x0 - pad, x1 + pad);
    let mut b = ChartBuilder::on(area);
    b.caption(title, ("sans-serif", 18)).margin(12).x_label_area_size(42).y_label_area_size(70);
    let legend = |c: RGBColor| move |(x, y): (i32, i32)| PathElement::new(vec![(x, y), (x + 18, y)], c.stroke_width(2));
    if log_y {
        let (y0, y1) = range(series.iter().flat_map(|s| s.points.iter().map(|p| p.1)).filter(|v| *v > 0.0));
        let mut chart = b.build_cartesian_2d(xr0..xr1, (y0 / 1.5..y1 * 1.5).log_scale()).map_err(err)?;
        line_mesh(&mut chart, xl, yl, &|v| format!("{v:.0e}"))?;
        for (i, s) in series.iter().enumerate() {
            let c = colour(i);
            let pts: Vec<(f64, f64)> = s.points.iter().copied().filter(|p| p.1 > 0.0).collect();
            chart.draw_series(LineSeries::new(pts.clone(), c.stroke_width(2))).map_err(err)?.label(s.name.as_str()).legend(legend(c));
            chart.draw_series(pts.iter().map(|p| Circle::new(*p, 3, c.filled()))).map_err(err)?;
        }
        series_legend(&mut chart, 14, 0.85, SeriesLabelPosition::UpperRight)?;
    } else {
        let (y0, y1) = range(series.iter().flat_map(|s| s.points.iter().map(|p| p.1)));
        let ypad = (y1 - y0) * 0.08;
        let lo = if y0 >= 0.0 && y0 - ypad < 0.0 { 0.0 } else { y0 - ypad };
        let mut chart = b.build_cartesian_2d(xr0..xr1, lo..y1 + ypad).map_err(err)?;
        line_mesh(&mut chart, xl, yl, &tick)?;
        for (i, s) in series.iter().enumerate() {
            let c = colour(i);
            chart.draw_series(LineSeries::new(s.points.clone(), c.stroke_width(2))).map_err(err)?.label(s.name.as_str()).legend(legend(c));
            chart.draw_series(s.points.iter().map(|p| Circle::new(*p, 3, c.filled()))).map_err(err)?;
        }
        series_legend(&mut chart, 14, 0.85, legend_corner(series))?;
    }
    Ok(())
}

/// Upper right for falling curves, upper left for rising ones, so the
/// legend covers the empty corner.
fn legend_corner(series: &[Series]) -> SeriesLabelPosition {
    let (mut first, mut last) = (0.0, 0.0);
    for s in series {
        if let (Some(a), Some(b)) = (s.points.first(), s.points.last()) {
            first += a.1;
            last += b.1;
        }
    }
    if first > last { SeriesLabelPosition::UpperRight } else { SeriesLabelPosition::UpperLeft }
}

fn bars<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, title: &str, yl: &str, cats: &[String], series: &[(String, Vec<Option<f64>>)]) -> Result<()> {
    let (_, y1) = range(series.iter().flat_map(|s| s.1.iter().flatten().copied()).chain(std::iter::once(0.0)));
    let n = cats.len().max(1) as f64;
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(42)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..n, 0.0..y1 * 1.12)
        .map_err(err)?;
    let labels: Vec<String> = cats.to_vec();
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(cats.len().max(1) * 2 + 1)
        .x_label_formatter(&|x| {
            let k = x - x.floor();
            if (k - 0.5).abs() < 1e-6 { labels.get(x.floor() as usize).cloned().unwrap_or_default() } else { String::new() }
        })
        .y_desc(yl)
        .y_label_formatter(&tick)
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 15))
        .light_line_style(RGBColor(238, 238, 238))
        .draw()
        .map_err(err)?;
    let width = 0.8 / series.len().max(1) as f64;
    for (si, (name, vals)) in series.iter().enumerate() {
        let c = colour(si);
        let rects: Vec<Rectangle<(f64, f64)>> = vals
            .iter()
            .enumerate()
            .filter_map(|(ci, v)| v.map(|v| (ci, v)))
            .map(|(ci, v)| {
                let x = ci as f64 + 0.1 + si as f64 * width;
                Rectangle::new([(x, 0.0), (x + width * 0.92, v)], c.filled())
            })
            .collect();
        chart.draw_series(rects).map_err(err)?.label(name.as_str()).legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], c.filled()));
    }
    series_legend(&mut chart, 14, 0.85, SeriesLabelPosition::UpperLeft)?;
    Ok(())
}

/// Rows of bar height the stacked chart's legend takes above the bars.
fn legend_rows(parts: usize) -> f64 {
    (22.0 * parts as f64 + 24.0) / 34.0
}

fn stacked<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, title: &str, parts: &[String], rows: &[(String, Vec<f64>)]) -> Result<()> {
    // Row i (from the top) is centred on y = n - 1 - i, so its label sits
    // on a whole-number tick.
    let n = rows.len();
    let labels: Vec<String> = rows.iter().map(|r| r.0.clone()).collect();
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(42)
        .y_label_area_size(120)
        .build_cartesian_2d(0.0..1.0, -0.6..n as f64 - 0.4 + legend_rows(parts.len()))
        .map_err(err)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(4 * (n + 4))
        .y_label_formatter(&|y| {
            let i = y.round();
            if (y - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < n { labels[n - 1 - i as usize].clone() } else { String::new() }
        })
        .x_label_formatter(&|x| format!("{:.0}%", x * 100.0))
        .x_desc("share of processor time")
        .label_style(("sans-serif", 13))
        .axis_desc_style(("sans-serif", 15))
        .light_line_style(RGBColor(238, 238, 238))
        .draw()
        .map_err(err)?;
    for (pi, part) in parts.iter().enumerate() {
        let c = colour(pi);
        let rects: Vec<Rectangle<(f64, f64)>> = rows
            .iter()
            .enumerate()
            .map(|(ri, (_, shares))| {
                let y = (n - 1 - ri) as f64;
                let start: f64 = shares[..pi.min(shares.len())].iter().sum();
                let w = shares.get(pi).copied().unwrap_or(0.0);
                Rectangle::new([(start, y - 0.35), (start + w, y + 0.35)], c.filled())
            })
            .collect();
        chart.draw_series(rects).map_err(err)?.label(part.as_str()).legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], c.filled()));
    }
    series_legend(&mut chart, 13, 0.9, SeriesLabelPosition::UpperMiddle)?;
    Ok(())
}

/// The figure's size in pixels: wide for rows of panels.
pub fn size(plot: &Plot) -> (u32, u32) {
    match plot {
        Plot::Row(p) => (420 * p.len().max(1) as u32, 400),
        Plot::Stacked { rows, parts, .. } => (860, 110 + (34.0 * (rows.len() as f64 + legend_rows(parts.len()))) as u32),
        _ => (760, 460),
    }
}

/// Draws the plot as SVG text.
pub fn svg(plot: &Plot) -> Result<String> {
    register();
    let mut s = String::new();
    {
        let root = SVGBackend::with_string(&mut s, size(plot)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        draw(&root, plot)?;
        root.present().map_err(err)?;
    }
    Ok(s)
}

/// Draws the plot as a PNG file at `path` (the caller's temporary file,
/// committed with the page).
pub fn png(plot: &Plot, path: &Path) -> Result<()> {
    register();
    let root = BitMapBackend::new(path, size(plot)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    draw(&root, plot)?;
    root.present().map_err(err)?;
    Ok(())
}
