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

/// Published points to draw beside a series of ours: open markers on a
/// thin dashed line, in the colour of the series they belong to.
#[derive(Clone, Debug)]
pub struct Mark {
    /// Index of the series of ours whose colour they take.
    pub colour: usize,
    /// The points, with their legend label.
    pub series: Series,
}

/// A figure as data.
#[derive(Clone, Debug)]
pub enum Plot {
    /// Lines with markers; `log_y` for a logarithmic y axis; `marks` are
    /// published points beside the lines.
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
        /// Published points, drawn beside the series.
        marks: Vec<Mark>,
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
    /// A timeline (`crate::timeline`): one row per track, time across,
    /// each row's bands of columns coloured by kind, a legend at the right.
    Timeline {
        /// Panel title.
        title: String,
        /// X axis label (with its unit).
        x_label: String,
        /// The time axis's end, in its unit.
        end: f64,
        /// Columns the time is cut into.
        columns: usize,
        /// Row labels, top to bottom.
        rows: Vec<String>,
        /// The kinds, in colour order.
        kinds: Vec<String>,
        /// Per row, its bands: (first column, past the last, kind).
        bands: Vec<Vec<(usize, usize, usize)>>,
    },
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
        Plot::Lines { title, x_label, y_label, log_y, series, marks } => lines(area, title, x_label, y_label, *log_y, series, marks),
        Plot::Bars { title, y_label, categories, series } => bars(area, title, y_label, categories, series),
        Plot::Stacked { title, parts, rows } => stacked(area, title, parts, rows),
        Plot::LogLines { title, x_label, y_label, log_y, series, anchors, legend } => {
            log_lines(area, title, x_label, y_label, *log_y, series, anchors, *legend)
        }
        Plot::Timeline { title, x_label, end, columns, rows, kinds, bands } => timeline(area, title, x_label, *end, *columns, rows, kinds, bands),
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

/// Axis numbers: whole numbers without decimals (whole thousands as `k`,
/// so labels stay short), others with up to three.
fn tick(v: &f64) -> String {
    if (v - v.round()).abs() < 1e-9 {
        let r = v.round();
        if r.abs() >= 1000.0 && (r / 1000.0).fract() == 0.0 { format!("{:.0}k", r / 1000.0) } else { format!("{r:.0}") }
    } else {
        let s = format!("{v:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// Log-axis numbers at 1, 2 and 5 times a power of ten (the others are
/// minor ticks, which crowd within a decade): plain where short (0.05, 20,
/// 500), else `1e-9`.
fn log_tick(v: &f64) -> String {
    let mantissa = v.abs() / 10f64.powf(v.abs().log10().floor());
    if ![1.0, 2.0, 5.0].iter().any(|m| (mantissa - m).abs() < 1e-6) {
        return String::new();
    }
    if (1e-3..1e5).contains(&v.abs()) { tick(v) } else { format!("{v:.0e}") }
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
    // About one x label per 70 pixels, so that labels never run together
    // in narrow panels.
    let width = chart.plotting_area().dim_in_pixel().0;
    chart
        .configure_mesh()
        .x_labels((width / 70).clamp(3, 10) as usize)
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

#[allow(clippy::too_many_arguments)]
fn lines<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, title: &str, xl: &str, yl: &str, log_y: bool, series: &[Series], marks: &[Mark]) -> Result<()> {
    let all = || series.iter().chain(marks.iter().map(|m| &m.series)).flat_map(|s| s.points.iter().copied());
    let (x0, x1) = range(all().map(|p| p.0));
    let pad = (x1 - x0) * 0.03;
    let (xr0, xr1) = (x0 - pad, x1 + pad);
    let mut b = ChartBuilder::on(area);
    b.caption(title, ("sans-serif", 18)).margin(12).x_label_area_size(42).y_label_area_size(70);
    let font = if matches!(area.dim_in_pixel(), (w, _) if w < 500) { 12 } else { 14 };
    macro_rules! body {
        ($chart:expr, $keep:expr) => {{
            let chart = $chart;
            let legend = |c: RGBColor| move |(x, y): (i32, i32)| PathElement::new(vec![(x, y), (x + 18, y)], c.stroke_width(2));
            let open = |c: RGBColor| move |(x, y): (i32, i32)| Cross::new((x + 9, y), 4, c.stroke_width(2));
            let mut drawn: Vec<Vec<(f64, f64)>> = vec![];
            for (i, s) in series.iter().enumerate() {
                let c = colour(i);
                let pts: Vec<(f64, f64)> = s.points.iter().copied().filter($keep).collect();
                // An empty series only holds its colour's place: no legend.
                if pts.is_empty() {
                    continue;
                }
                chart.draw_series(LineSeries::new(pts.clone(), c.stroke_width(2))).map_err(err)?.label(s.name.as_str()).legend(legend(c));
                // Dots mark measured points; a dense curve (a learning curve)
                // would turn them into a thick band.
                if pts.len() <= 60 {
                    chart.draw_series(pts.iter().map(|p| Circle::new(*p, 3, c.filled()))).map_err(err)?;
                }
                drawn.push(pts);
            }
            for m in marks {
                let c = colour(m.colour);
                let pts: Vec<(f64, f64)> = m.series.points.iter().copied().filter($keep).collect();
                chart.draw_series(DashedLineSeries::new(pts.clone(), 4, 4, c.stroke_width(1))).map_err(err)?;
                chart.draw_series(pts.iter().map(|p| Cross::new(*p, 5, c.stroke_width(2)))).map_err(err)?.label(m.series.name.as_str()).legend(open(c));
                drawn.push(pts);
            }
            let names: Vec<&str> =
                series.iter().filter(|s| !s.points.is_empty()).map(|s| s.name.as_str()).chain(marks.iter().map(|m| m.series.name.as_str())).collect();
            let at = free_corner(chart, &drawn, &names, font, legend_corner(series));
            series_legend(chart, font, 0.85, at)?;
        }};
    }
    if log_y {
        let (y0, y1) = range(all().map(|p| p.1).filter(|v| *v > 0.0));
        // The axis starts at a power of ten: plotters labels a log axis from
        // the first power of ten up, so anything below it would have ticks
        // without numbers.
        let floor = 10f64.powf(y0.log10().floor());
        let mut chart = b.build_cartesian_2d(xr0..xr1, (floor..y1 * 1.5).log_scale()).map_err(err)?;
        line_mesh(&mut chart, xl, yl, &log_tick)?;
        body!(&mut chart, |p: &(f64, f64)| p.1 > 0.0);
    } else {
        let (y0, y1) = range(all().map(|p| p.1));
        let ypad = (y1 - y0) * 0.08;
        let lo = if y0 >= 0.0 && y0 - ypad < 0.0 { 0.0 } else { y0 - ypad };
        let mut chart = b.build_cartesian_2d(xr0..xr1, lo..y1 + ypad).map_err(err)?;
        line_mesh(&mut chart, xl, yl, &tick)?;
        body!(&mut chart, |_: &(f64, f64)| true);
    }
    Ok(())
}

/// The corner of the plotting area where the legend covers the fewest
/// drawn points (lines sampled between their points); `prefer` first, so a
/// tie keeps the usual place.
fn free_corner<'a, DB: DrawingBackend + 'a, X: Ranged<ValueType = f64>, Y: Ranged<ValueType = f64>>(
    chart: &ChartContext<'a, DB, Cartesian2d<X, Y>>,
    drawn: &[Vec<(f64, f64)>],
    names: &[&str],
    font: u32,
    prefer: SeriesLabelPosition,
) -> SeriesLabelPosition {
    use SeriesLabelPosition::*;
    let f = ("sans-serif", font).into_font();
    let text_w = names.iter().filter_map(|n| f.box_size(n).ok()).map(|b| b.0 as i32).max().unwrap_or(0);
    // The legend box as plotters lays it out: 30 px of symbol, 10 px margins.
    let (w, h) = (text_w + 30 + 20, (names.len() as i32) * (font as i32 + 4) + 20);
    let (xr, yr) = chart.plotting_area().get_pixel_range();
    let (aw, ah) = (xr.end - xr.start, yr.end - yr.start);
    let mut pixels = vec![];
    for pts in drawn {
        for (i, p) in pts.iter().enumerate() {
            pixels.push(chart.backend_coord(p));
            if let Some(q) = pts.get(i + 1) {
                let (a, b) = (chart.backend_coord(p), chart.backend_coord(q));
                for k in 1..24 {
                    let t = k as f64 / 24.0;
                    pixels.push((a.0 + ((b.0 - a.0) as f64 * t) as i32, a.1 + ((b.1 - a.1) as f64 * t) as i32));
                }
            }
        }
    }
    let mut candidates = vec![prefer];
    candidates.extend([UpperRight, UpperLeft, LowerLeft, LowerRight, UpperMiddle, LowerMiddle, MiddleRight, MiddleLeft]);
    let covered = |pos: &SeriesLabelPosition| {
        let x = match pos {
            UpperLeft | MiddleLeft | LowerLeft => 5,
            UpperMiddle | MiddleMiddle | LowerMiddle => (aw - w) / 2,
            _ => aw - w - 5,
        } + xr.start;
        let y = match pos {
            UpperLeft | UpperMiddle | UpperRight => 5,
            MiddleLeft | MiddleMiddle | MiddleRight => (ah - h) / 2,
            _ => ah - h - 5,
        } + yr.start;
        pixels.iter().filter(|p| p.0 >= x - 4 && p.0 <= x + w + 4 && p.1 >= y - 4 && p.1 <= y + h + 4).count()
    };
    let mut best = (usize::MAX, UpperRight);
    for c in candidates {
        let n = covered(&c);
        if n < best.0 {
            best = (n, c);
        }
    }
    best.1
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

/// Width of the stacked chart's legend, at the right of the bars.
const STACK_LEGEND_W: u32 = 170;

fn stacked<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, title: &str, parts: &[String], rows: &[(String, Vec<f64>)]) -> Result<()> {
    // The legend gets its own strip at the right, so the bars use the whole
    // height; rows sit on a segmented axis, one labelled tick per row.
    let (w, _) = area.dim_in_pixel();
    let (plot, legend) = area.split_horizontally(w.saturating_sub(STACK_LEGEND_W));
    let n = rows.len();
    let labels: Vec<String> = rows.iter().map(|r| r.0.clone()).collect();
    let mut chart = ChartBuilder::on(&plot)
        .caption(title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(42)
        .y_label_area_size(90)
        // An i32 range includes its end: 0..n-1 is n segments.
        .build_cartesian_2d(0.0..1.0, (0..(n.max(1) as i32 - 1)).into_segmented())
        .map_err(err)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(n.max(1))
        .y_label_formatter(&|y| match y {
            SegmentValue::CenterOf(i) if *i >= 0 && (*i as usize) < n => labels[n - 1 - *i as usize].clone(),
            _ => String::new(),
        })
        .x_label_formatter(&|x| format!("{:.0}%", x * 100.0))
        .x_desc("share of processor time")
        .label_style(("sans-serif", 13))
        .axis_desc_style(("sans-serif", 15))
        .light_line_style(RGBColor(238, 238, 238))
        .draw()
        .map_err(err)?;
    for (pi, _) in parts.iter().enumerate() {
        let c = colour(pi);
        let rects: Vec<Rectangle<(f64, SegmentValue<i32>)>> = rows
            .iter()
            .enumerate()
            .map(|(ri, (_, shares))| {
                let y = (n - 1 - ri) as i32;
                let start: f64 = shares[..pi.min(shares.len())].iter().sum();
                let w = shares.get(pi).copied().unwrap_or(0.0);
                Rectangle::new([(start, SegmentValue::Exact(y)), (start + w, SegmentValue::Exact(y + 1))], c.filled())
            })
            .collect();
        chart.draw_series(rects).map_err(err)?;
    }
    // White rules between the rows, so neighbouring bars stay apart.
    for i in 1..n as i32 {
        chart
            .draw_series(std::iter::once(PathElement::new(vec![(0.0, SegmentValue::Exact(i)), (1.0, SegmentValue::Exact(i))], WHITE.stroke_width(6))))
            .map_err(err)?;
    }
    // The legend, top to bottom in stacking order.
    let font = ("sans-serif", 13).into_font();
    for (pi, part) in parts.iter().enumerate() {
        let y = 48 + 22 * pi as i32;
        legend.draw(&Rectangle::new([(6, y - 6), (20, y + 6)], colour(pi).filled())).map_err(err)?;
        legend.draw(&Text::new(part.clone(), (26, y - 7), font.clone())).map_err(err)?;
    }
    Ok(())
}

/// Width of the timeline's legend, at the right of the rows.
const TIMELINE_LEGEND_W: u32 = 160;

/// Height of one timeline row: thin for many processors, at most 40 px.
fn timeline_row_h(rows: usize) -> u32 {
    (480 / rows.max(1) as u32).clamp(6, 40)
}

/// Rows labelled on the timeline's axis: every one up to 16, else every
/// k-th (P0, P8, ...), so labels never run together.
fn timeline_label_step(rows: usize) -> usize {
    if rows <= 16 { 1 } else { rows.div_ceil(16).next_power_of_two() }
}

#[allow(clippy::too_many_arguments)]
fn timeline<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
    xl: &str,
    end: f64,
    columns: usize,
    rows: &[String],
    kinds: &[String],
    bands: &[Vec<(usize, usize, usize)>],
) -> Result<()> {
    let (w, _) = area.dim_in_pixel();
    let (plot, legend) = area.split_horizontally(w.saturating_sub(TIMELINE_LEGEND_W));
    let n = rows.len().max(1);
    let step = timeline_label_step(n);
    let mut chart = ChartBuilder::on(&plot)
        .caption(title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(42)
        .y_label_area_size(70)
        // Row i (P0 first) is drawn from n - 1 - i to n - i, top down.
        .build_cartesian_2d(0.0..end.max(f64::MIN_POSITIVE), 0.0..n as f64)
        .map_err(err)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .disable_x_mesh()
        .y_labels(0)
        .x_labels(8)
        .x_desc(xl)
        .x_label_formatter(&tick)
        .label_style(("sans-serif", 13))
        .axis_desc_style(("sans-serif", 15))
        .draw()
        .map_err(err)?;
    // The rows' labels, drawn by hand at the rows' middles (a numeric axis
    // would put them at round numbers, between rows).
    let font = ("sans-serif", 12).into_font();
    let (xr, _) = chart.plotting_area().get_pixel_range();
    for (i, r) in rows.iter().enumerate().step_by(step) {
        let (_, y) = chart.backend_coord(&(0.0, n as f64 - i as f64 - 0.5));
        let (tw, th) = font.box_size(r).unwrap_or((0, 0));
        plot.draw(&Text::new(r.clone(), (xr.start - 6 - tw as i32, y - th as i32 / 2), font.clone())).map_err(err)?;
    }
    let col = end / columns.max(1) as f64;
    let rects = bands.iter().enumerate().flat_map(|(i, row)| {
        let (y0, y1) = (n as f64 - i as f64 - 1.0, n as f64 - i as f64);
        // A sliver between rows, so that neighbouring rows stay apart.
        let gap = if n > 1 { 0.12 } else { 0.0 };
        row.iter().map(move |&(c0, c1, k)| Rectangle::new([(c0 as f64 * col, y0 + gap), (c1 as f64 * col, y1 - gap)], colour(k).filled()))
    });
    chart.draw_series(rects).map_err(err)?;
    for (k, name) in kinds.iter().enumerate() {
        let y = 48 + 22 * k as i32;
        legend.draw(&Rectangle::new([(6, y - 6), (20, y + 6)], colour(k).filled())).map_err(err)?;
        legend.draw(&Text::new(name.clone(), (26, y - 7), font.clone())).map_err(err)?;
    }
    Ok(())
}

/// The figure's size in pixels: wide for rows of panels.
pub fn size(plot: &Plot) -> (u32, u32) {
    match plot {
        Plot::Timeline { rows, kinds, .. } => (960, (110 + timeline_row_h(rows.len()) * rows.len() as u32).max(70 + 22 * kinds.len() as u32)),
        Plot::Row(p) => (420 * p.len().max(1) as u32, 400),
        Plot::Stacked { rows, parts, .. } => (860, (110 + 34 * rows.len() as u32).max(70 + 22 * parts.len() as u32)),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_axis_labels() {
        assert_eq!([10.0, 20.0, 30.0, 50.0, 90.0, 100.0].map(|v| log_tick(&v)), ["10", "20", "", "50", "", "100"]);
        assert_eq!([0.05, 1e-9, 2e5].map(|v| log_tick(&v)), ["0.05", "1e-9", "2e5"]);
        assert_eq!(tick(&10_000.0), "10k");
    }
}
