//! Small SVG line charts, for the pictures `veritas eval` and `veritas simulate` write (pure: a
//! chart in, SVG text out; no plotting dependency, no I/O). One renderer: a single chart with
//! its legend beside it ([`svg`]), or several charts side by side sharing one legend
//! ([`svg_panels`]).

use std::fmt::Write as _;

/// How a series marks its points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Marker {
    /// A dot, its label above.
    #[default]
    Circle,
    /// A square, its label below (tells two series apart where they cross).
    Square,
}

/// One line of a chart.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Series {
    /// Legend text.
    pub name: String,
    /// Stroke colour (CSS).
    pub color: &'static str,
    /// Points in data coordinates (x in [0, 1], y in the chart's range).
    pub points: Vec<(f64, f64)>,
    /// Mark each point with this label (e.g. a bin's count); empty for no marks.
    pub point_labels: Vec<String>,
    /// The mark's shape.
    pub marker: Marker,
}

/// A chart: axes over [0, 1] × [y_min, 1], its lines, and a few lines of notes under it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Chart {
    /// Title above the plot.
    pub title: String,
    /// A grey line under the title; empty for none.
    pub subtitle: String,
    /// X axis label.
    pub x_label: String,
    /// Y axis label.
    pub y_label: String,
    /// Bottom of the y axis (the top is 1).
    pub y_min: f64,
    /// Tick positions on the y axis; empty for every 20% from `y_min`.
    pub y_ticks: Vec<f64>,
    /// Tick positions on the x axis; empty for every 20%.
    pub x_ticks: Vec<f64>,
    /// The lines.
    pub series: Vec<Series>,
    /// Draw the y = x diagonal (perfect calibration).
    pub diagonal: bool,
    /// A dashed horizontal line at this y with its label (e.g. a precision target).
    pub reference: Option<(f64, String)>,
    /// Lines of coloured text in the plot's lower left corner.
    pub inner_notes: Vec<(String, &'static str)>,
    /// Text lines under the plot (what was measured, and how).
    pub notes: Vec<String>,
}

const LEFT: f64 = 60.0;
const TOP: f64 = 40.0;
const SIZE: f64 = 320.0;
const LEGEND_W: f64 = 230.0;
/// Side of one plot in a row of panels, and the room each panel takes.
const PANEL_SIZE: f64 = 250.0;
const PANEL_W: f64 = 330.0;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn open(s: &mut String, width: f64, height: f64) {
    let _ = writeln!(
        s,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">"##
    );
    let _ = writeln!(s, r##"<rect width="100%" height="100%" fill="white"/>"##);
}

fn ticks(given: &[f64], from: f64) -> Vec<f64> {
    if given.is_empty() {
        (0..=5)
            .map(|i| from + (1.0 - from) * f64::from(i) / 5.0)
            .collect()
    } else {
        given.to_vec()
    }
}

fn mark(s: &mut String, marker: Marker, (x, y): (f64, f64), color: &str, label: &str) {
    let (shape, dy) = match marker {
        Marker::Circle => (
            format!(r##"<circle cx="{x:.1}" cy="{y:.1}" r="3" fill="{color}"/>"##),
            -6.0,
        ),
        Marker::Square => (
            format!(
                r##"<rect x="{:.1}" y="{:.1}" width="7" height="7" fill="{color}"/>"##,
                x - 3.5,
                y - 3.5
            ),
            14.0,
        ),
    };
    let _ = writeln!(
        s,
        r##"{shape}<text x="{x:.1}" y="{:.1}" fill="{color}" font-size="9" text-anchor="middle">{}</text>"##,
        y + dy,
        esc(label)
    );
}

/// The chart's title and subtitle, centred above a plot of side `size` at (`x0`, `y0`).
fn titles(s: &mut String, chart: &Chart, x0: f64, y0: f64, size: f64) {
    let title_y = if chart.subtitle.is_empty() {
        y0 - 20.0
    } else {
        y0 - 28.0
    };
    let _ = writeln!(
        s,
        r##"<text x="{}" y="{title_y}" text-anchor="middle" font-size="13" font-weight="bold">{}</text>"##,
        x0 + size / 2.0,
        esc(&chart.title)
    );
    if !chart.subtitle.is_empty() {
        let _ = writeln!(
            s,
            r##"<text x="{}" y="{}" text-anchor="middle" fill="#555">{}</text>"##,
            x0 + size / 2.0,
            y0 - 12.0,
            esc(&chart.subtitle)
        );
    }
}

/// Where a plot sits (top left corner, side) and how data coordinates map into it.
#[derive(Debug, Clone, Copy)]
struct Frame {
    x0: f64,
    y0: f64,
    size: f64,
    /// Bottom of the y axis (the top is 1).
    y_min: f64,
}

impl Frame {
    /// Data x (0 to 1) as SVG x.
    fn px(&self, x: f64) -> f64 {
        self.x0 + x.clamp(0.0, 1.0) * self.size
    }

    /// Data y (`y_min` to 1) as SVG y, 1 at the top.
    fn py(&self, y: f64) -> f64 {
        self.y0 + (1.0 - (y.clamp(self.y_min, 1.0) - self.y_min) / (1.0 - self.y_min)) * self.size
    }
}

/// One series: its line through the finite points (mapped into `f`), and its marks.
fn draw_series(s: &mut String, series: &Series, f: &Frame) {
    let points: Vec<(f64, f64)> = series
        .points
        .iter()
        .filter(|(x, y)| x.is_finite() && y.is_finite())
        .map(|(x, y)| (f.px(*x), f.py(*y)))
        .collect();
    if points.len() > 1 {
        let path: Vec<String> = points
            .iter()
            .map(|(x, y)| format!("{x:.1},{y:.1}"))
            .collect();
        let _ = writeln!(
            s,
            r##"<polyline fill="none" stroke="{}" stroke-width="2" points="{}"/>"##,
            series.color,
            path.join(" ")
        );
    }
    for (point, label) in points.iter().zip(&series.point_labels) {
        mark(s, series.marker, *point, series.color, label);
    }
}

/// One plot of side `size` with its top left corner at (`x0`, `y0`): frame, ticks, labels,
/// lines and marks. No legend: the caller places it.
fn plot(s: &mut String, chart: &Chart, x0: f64, y0: f64, size: f64) {
    let f = Frame {
        x0,
        y0,
        size,
        y_min: chart.y_min.clamp(0.0, 0.99),
    };
    titles(s, chart, x0, y0, size);
    grid(s, chart, &f);
    let _ = writeln!(
        s,
        r##"<rect x="{x0}" y="{y0}" width="{size}" height="{size}" fill="none" stroke="#333"/>"##
    );
    guides(s, chart, &f);
    axis_labels(s, chart, &f);
    for series in &chart.series {
        draw_series(s, series, &f);
    }
    for (i, (note, color)) in chart.inner_notes.iter().enumerate() {
        let _ = writeln!(
            s,
            r##"<text x="{}" y="{}" font-size="10" fill="{color}">{}</text>"##,
            x0 + 6.0,
            y0 + size - 22.0 + 14.0 * i as f64,
            esc(note)
        );
    }
}

/// The grid lines and their percent labels, x ticks then y ticks.
fn grid(s: &mut String, chart: &Chart, f: &Frame) {
    let Frame { x0, y0, size, .. } = *f;
    for t in ticks(&chart.x_ticks, 0.0) {
        let _ = writeln!(
            s,
            r##"<line x1="{x}" y1="{y0}" x2="{x}" y2="{}" stroke="#eee"/><text x="{x}" y="{}" text-anchor="middle">{}%</text>"##,
            y0 + size,
            y0 + size + 14.0,
            (t * 100.0).round(),
            x = f.px(t),
        );
    }
    for t in ticks(&chart.y_ticks, f.y_min) {
        let _ = writeln!(
            s,
            r##"<line x1="{x0}" y1="{y}" x2="{}" y2="{y}" stroke="#eee"/><text x="{}" y="{}" text-anchor="end">{}%</text>"##,
            x0 + size,
            x0 - 4.0,
            f.py(t) + 4.0,
            (t * 100.0).round(),
            y = f.py(t),
        );
    }
}

/// The dashed guides a chart asks for: the diagonal, the reference line and its label.
fn guides(s: &mut String, chart: &Chart, f: &Frame) {
    if chart.diagonal {
        let _ = writeln!(
            s,
            r##"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#999" stroke-dasharray="4 3"/>"##,
            f.px(0.0),
            f.py(0.0),
            f.px(1.0),
            f.py(1.0)
        );
    }
    if let Some((y, label)) = &chart.reference {
        let _ = writeln!(
            s,
            r##"<line x1="{x0}" y1="{ry}" x2="{x1}" y2="{ry}" stroke="#888" stroke-dasharray="4 3"/><text x="{x1}" y="{}" text-anchor="end" fill="#888">{}</text>"##,
            f.py(*y) - 3.0,
            esc(label),
            x0 = f.x0,
            ry = f.py(*y),
            x1 = f.x0 + f.size,
        );
    }
}

/// The axis labels: x under the plot, y turned along its left side.
fn axis_labels(s: &mut String, chart: &Chart, f: &Frame) {
    let _ = writeln!(
        s,
        r##"<text x="{}" y="{}" text-anchor="middle">{}</text>"##,
        f.x0 + f.size / 2.0,
        f.y0 + f.size + 32.0,
        esc(&chart.x_label)
    );
    let (yx, yy) = (f.x0 - 42.0, f.y0 + f.size / 2.0);
    let _ = writeln!(
        s,
        r##"<text x="{yx}" y="{yy}" text-anchor="middle" transform="rotate(-90 {yx} {yy})">{}</text>"##,
        esc(&chart.y_label)
    );
}

/// A legend entry at (`x`, `y`): the series' line, or its marker when it marks points.
fn legend_entry(s: &mut String, series: &Series, x: f64, y: f64) {
    if series.point_labels.is_empty() {
        let _ = writeln!(
            s,
            r##"<line x1="{x}" y1="{y}" x2="{}" y2="{y}" stroke="{}" stroke-width="2"/>"##,
            x + 18.0,
            series.color
        );
    } else {
        mark(s, series.marker, (x + 9.0, y), series.color, "");
    }
    let _ = writeln!(
        s,
        r##"<text x="{}" y="{}">{}</text>"##,
        x + 24.0,
        y + 4.0,
        esc(&series.name)
    );
}

fn notes(s: &mut String, notes: &[String], y0: f64) {
    for (i, note) in notes.iter().enumerate() {
        let _ = writeln!(
            s,
            r##"<text x="10" y="{}" fill="#555">{}</text>"##,
            y0 + 16.0 * i as f64,
            esc(note)
        );
    }
}

/// The chart as a standalone SVG document, its legend to the right of the plot.
pub fn svg(chart: &Chart) -> String {
    let width = LEFT + SIZE + 20.0 + LEGEND_W;
    let height = TOP + SIZE + 50.0 + 16.0 * chart.notes.len() as f64;
    let mut s = String::new();
    open(&mut s, width, height);
    plot(&mut s, chart, LEFT, TOP, SIZE);
    for (i, series) in chart.series.iter().enumerate() {
        legend_entry(
            &mut s,
            series,
            LEFT + SIZE + 20.0,
            TOP + 10.0 + 18.0 * i as f64,
        );
    }
    notes(&mut s, &chart.notes, TOP + SIZE + 54.0);
    s.push_str("</svg>\n");
    s
}

/// Several charts side by side in one SVG document, with one legend (`legend`: names, colours
/// and markers; their points are not drawn) and `notes` under them all.
pub fn svg_panels(charts: &[Chart], legend: &[Series], notes_below: &[String]) -> String {
    const PANEL_TOP: f64 = 50.0;
    let width = PANEL_W * charts.len() as f64 + 20.0;
    let legend_y = PANEL_TOP + PANEL_SIZE + 55.0;
    let height = legend_y + 18.0 * legend.len() as f64 + 16.0 * notes_below.len() as f64 + 20.0;
    let mut s = String::new();
    open(&mut s, width, height);
    for (i, chart) in charts.iter().enumerate() {
        plot(
            &mut s,
            chart,
            10.0 + PANEL_W * i as f64 + 55.0,
            PANEL_TOP,
            PANEL_SIZE,
        );
    }
    for (i, series) in legend.iter().enumerate() {
        legend_entry(&mut s, series, 66.0, legend_y + 18.0 * i as f64);
    }
    notes(
        &mut s,
        notes_below,
        legend_y + 18.0 * legend.len() as f64 + 4.0,
    );
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart() -> Chart {
        Chart {
            title: "A & B".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            series: vec![Series {
                name: "line".into(),
                color: "#1f77b4",
                points: vec![(0.0, 0.0), (0.5, 0.25), (1.0, 1.0)],
                point_labels: vec!["n=3".into(), String::new(), String::new()],
                marker: Marker::Circle,
            }],
            diagonal: true,
            notes: vec!["measured <here>".into()],
            ..Chart::default()
        }
    }

    #[test]
    fn the_svg_holds_the_points_and_escapes_text() {
        let s = svg(&chart());
        assert!(s.starts_with("<svg") && s.ends_with("</svg>\n"));
        // (0.5, 0.25) → x = 60 + 160, y = 40 + 0.75 · 320.
        assert!(s.contains("220.0,280.0"), "{s}");
        assert!(s.contains("A &amp; B") && s.contains("measured &lt;here&gt;"));
        assert!(s.contains("stroke-dasharray"), "the diagonal");
        // Three marks, and the legend's line (not a mark) for a series without labels.
        assert_eq!(
            s.matches("<circle").count(),
            4,
            "three marks and the legend's"
        );
    }

    #[test]
    fn a_single_point_draws_no_line() {
        let mut c = chart();
        c.series[0].points.truncate(1);
        assert!(!svg(&c).contains("<polyline"));
    }

    #[test]
    fn panels_share_one_legend_and_scale_y_from_its_minimum() {
        let panel = |title: &str| Chart {
            title: title.into(),
            subtitle: "labels: correlation".into(),
            y_min: 0.5,
            series: vec![Series {
                name: "old".into(),
                color: "#d62728",
                points: vec![(0.0, 0.5), (1.0, 1.0)],
                point_labels: vec!["0".into(), "1".into()],
                marker: Marker::Square,
            }],
            reference: Some((0.95, "95%".into())),
            inner_notes: vec![("old: resolves nothing".into(), "#d62728")],
            ..Chart::default()
        };
        let legend = [Series {
            name: "old rule".into(),
            color: "#d62728",
            point_labels: vec![String::new()],
            marker: Marker::Square,
            ..Series::default()
        }];
        let s = svg_panels(
            &[panel("one"), panel("two")],
            &legend,
            &["5000 questions".into()],
        );
        // Second panel's plot starts at 10 + 330 + 55; y = 0.5 is its bottom (50 + 250).
        assert!(s.contains("395.0,300.0 645.0,50.0"), "{s}");
        assert_eq!(
            s.matches("<rect x=").count(),
            2 * 2 + 2 + 1,
            "marks, frames, legend"
        );
        assert!(s.contains(">one<") && s.contains(">two<") && s.contains("5000 questions"));
        assert_eq!(
            s.matches("stroke-dasharray").count(),
            2,
            "one reference line each"
        );
    }
}
