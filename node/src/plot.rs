//! Small SVG line charts over the unit square, for the pictures `veritas eval` writes next to
//! its JSON (pure: a chart in, SVG text out; no plotting dependency, no I/O).

use std::fmt::Write as _;

/// One line of a chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Legend text.
    pub name: String,
    /// Stroke colour (CSS).
    pub color: &'static str,
    /// Points in data coordinates, both in [0, 1].
    pub points: Vec<(f64, f64)>,
    /// Draw a dot with this label at each point (e.g. a bin's count); empty for none.
    pub point_labels: Vec<String>,
}

/// A chart: axes over [0, 1] × [0, 1], its lines, and a few lines of notes under it.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    /// Title above the plot.
    pub title: String,
    /// X axis label.
    pub x_label: String,
    /// Y axis label.
    pub y_label: String,
    /// The lines.
    pub series: Vec<Series>,
    /// Draw the y = x diagonal (perfect calibration).
    pub diagonal: bool,
    /// Text lines under the plot (what was measured, and how).
    pub notes: Vec<String>,
}

const LEFT: f64 = 60.0;
const TOP: f64 = 40.0;
const SIZE: f64 = 320.0;
const LEGEND_W: f64 = 230.0;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The chart as a standalone SVG document.
pub fn svg(chart: &Chart) -> String {
    let width = LEFT + SIZE + 20.0 + LEGEND_W;
    let height = TOP + SIZE + 50.0 + 16.0 * chart.notes.len() as f64;
    let px = |x: f64| LEFT + x.clamp(0.0, 1.0) * SIZE;
    let py = |y: f64| TOP + (1.0 - y.clamp(0.0, 1.0)) * SIZE;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">"##
    );
    let _ = writeln!(s, r##"<rect width="100%" height="100%" fill="white"/>"##);
    let _ = writeln!(
        s,
        r##"<text x="{}" y="20" text-anchor="middle" font-size="13" font-weight="bold">{}</text>"##,
        LEFT + SIZE / 2.0,
        esc(&chart.title)
    );
    for i in 0..=5 {
        let t = f64::from(i) / 5.0;
        let _ = writeln!(
            s,
            r##"<line x1="{x}" y1="{}" x2="{x}" y2="{}" stroke="#eee"/><line x1="{}" y1="{y}" x2="{}" y2="{y}" stroke="#eee"/><text x="{x}" y="{}" text-anchor="middle">{l}%</text><text x="{}" y="{}" text-anchor="end">{l}%</text>"##,
            TOP,
            TOP + SIZE,
            LEFT,
            LEFT + SIZE,
            TOP + SIZE + 14.0,
            LEFT - 4.0,
            py(t) + 4.0,
            x = px(t),
            y = py(t),
            l = i * 20
        );
    }
    let _ = writeln!(
        s,
        r##"<rect x="{LEFT}" y="{TOP}" width="{SIZE}" height="{SIZE}" fill="none" stroke="#333"/>"##
    );
    if chart.diagonal {
        let _ = writeln!(
            s,
            r##"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#999" stroke-dasharray="4 3"/>"##,
            px(0.0),
            py(0.0),
            px(1.0),
            py(1.0)
        );
    }
    let _ = writeln!(
        s,
        r##"<text x="{}" y="{}" text-anchor="middle">{}</text>"##,
        LEFT + SIZE / 2.0,
        TOP + SIZE + 32.0,
        esc(&chart.x_label)
    );
    let (yx, yy) = (LEFT - 42.0, TOP + SIZE / 2.0);
    let _ = writeln!(
        s,
        r##"<text x="{yx}" y="{yy}" text-anchor="middle" transform="rotate(-90 {yx} {yy})">{}</text>"##,
        esc(&chart.y_label)
    );
    for (i, series) in chart.series.iter().enumerate() {
        let points: Vec<String> = series
            .points
            .iter()
            .filter(|(x, y)| x.is_finite() && y.is_finite())
            .map(|(x, y)| format!("{:.1},{:.1}", px(*x), py(*y)))
            .collect();
        if points.len() > 1 {
            let _ = writeln!(
                s,
                r##"<polyline fill="none" stroke="{}" stroke-width="2" points="{}"/>"##,
                series.color,
                points.join(" ")
            );
        }
        for ((x, y), label) in series.points.iter().zip(&series.point_labels) {
            let _ = writeln!(
                s,
                r##"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{}"/><text x="{:.1}" y="{:.1}" fill="{}" font-size="9">{}</text>"##,
                px(*x),
                py(*y),
                series.color,
                px(*x) + 4.0,
                py(*y) - 4.0,
                series.color,
                esc(label)
            );
        }
        let ly = TOP + 10.0 + 18.0 * i as f64;
        let lx = LEFT + SIZE + 20.0;
        let _ = writeln!(
            s,
            r##"<line x1="{lx}" y1="{ly}" x2="{}" y2="{ly}" stroke="{}" stroke-width="2"/><text x="{}" y="{}">{}</text>"##,
            lx + 18.0,
            series.color,
            lx + 24.0,
            ly + 4.0,
            esc(&series.name)
        );
    }
    for (i, note) in chart.notes.iter().enumerate() {
        let _ = writeln!(
            s,
            r##"<text x="10" y="{}" fill="#555">{}</text>"##,
            TOP + SIZE + 54.0 + 16.0 * i as f64,
            esc(note)
        );
    }
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
            }],
            diagonal: true,
            notes: vec!["measured <here>".into()],
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
        assert_eq!(s.matches("<circle").count(), 3);
    }

    #[test]
    fn a_single_point_draws_no_line() {
        let mut c = chart();
        c.series[0].points.truncate(1);
        assert!(!svg(&c).contains("<polyline"));
    }
}
