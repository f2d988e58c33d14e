//! `veritas simulate`: precision and coverage of the old and the new routing rule on synthetic
//! juror pools whose errors are correlated (see [`crate::policy::simulate`]).
//!
//! Without `--accuracy` it runs the README's four panels — one model at 80%, two models at
//! 80%, three independent models at 80%, each with rising correlation between a model's own
//! ballots, and three models at 80% with rising correlation between models — plus the thesis
//! point (three models at 83%), prints a
//! table and, with `--svg`, draws precision against coverage for both rules.
//!
//! ```sh
//! veritas simulate --svg docs/routing-simulation.svg
//! veritas simulate --accuracy 0.8,0.8,0.8 --within 0.9 --between 0.1 --questions 5000
//! ```

use std::path::PathBuf;

use anyhow::Context as _;
use clap::Args;

use crate::policy::RoutingPolicy;
use crate::policy::simulate::{Outcomes, Scenario, Shape, run};

/// Arguments of `veritas simulate`.
#[derive(Debug, Args)]
pub struct SimulateArgs {
    /// Questions per point.
    #[arg(long, default_value_t = 5000)]
    pub questions: u64,
    /// Seed of the first point (point i uses seed + i).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// One scenario instead of the standard panels: comma-separated accuracy per model.
    #[arg(long, value_delimiter = ',')]
    pub accuracy: Option<Vec<f64>>,
    /// With `--accuracy`: probability that a ballot repeats its model's judgement.
    #[arg(long, default_value_t = 0.0)]
    pub within: f64,
    /// With `--accuracy`: probability that a model's judgement is the question's shared one.
    #[arg(long, default_value_t = 0.0)]
    pub between: f64,
    /// Share of errors that are NULL rather than the opposite answer.
    #[arg(long, default_value_t = 0.0)]
    pub null_share: f64,
    /// Override the effective lower-bound threshold (default: the routing default).
    #[arg(long)]
    pub min_effective_lower_bound: Option<f64>,
    /// Write the standard panels as an SVG picture here.
    #[arg(long)]
    pub svg: Option<PathBuf>,
}

/// One panel: a pool and the correlation that grows along it.
struct Panel {
    title: &'static str,
    axis: &'static str,
    points: Vec<(f64, Outcomes)>,
}

const LEVELS: [f64; 7] = [0.0, 0.25, 0.5, 0.75, 0.9, 0.95, 1.0];

/// Run `veritas simulate`.
///
/// # Errors
/// An unwritable SVG file.
pub fn run_command(args: SimulateArgs) -> anyhow::Result<()> {
    let mut policy = RoutingPolicy::default();
    if let Some(b) = args.min_effective_lower_bound {
        policy.min_effective_lower_bound = b;
    }
    let shape = Shape::default();
    if let Some(accuracies) = &args.accuracy {
        let scenario = Scenario {
            accuracies: accuracies.clone(),
            within: args.within,
            between: args.between,
            null_share: args.null_share,
        };
        let out = run(&scenario, &shape, &policy, args.questions, args.seed);
        println!("{}", serde_json::to_string(&out)?);
        return Ok(());
    }
    let mut seed = args.seed;
    let mut point = |accuracies: &[f64], within: f64, between: f64| {
        seed += 1;
        run(
            &Scenario {
                accuracies: accuracies.to_vec(),
                within,
                between,
                null_share: args.null_share,
            },
            &shape,
            &policy,
            args.questions,
            seed,
        )
    };
    let panels = [
        Panel {
            title: "one model, 80% accurate",
            axis: "within-model correlation",
            points: LEVELS.iter().map(|&w| (w, point(&[0.8], w, 0.0))).collect(),
        },
        Panel {
            title: "two models, 80% each",
            axis: "within-model correlation",
            points: LEVELS
                .iter()
                .map(|&w| (w, point(&[0.8; 2], w, 0.0)))
                .collect(),
        },
        Panel {
            title: "three independent models, 80% each",
            axis: "within-model correlation",
            points: LEVELS
                .iter()
                .map(|&w| (w, point(&[0.8; 3], w, 0.0)))
                .collect(),
        },
        Panel {
            title: "three models, 80%, within 0.9",
            axis: "between-model correlation",
            points: LEVELS
                .iter()
                .map(|&b| (b, point(&[0.8; 3], 0.9, b)))
                .collect(),
        },
    ];
    println!(
        "{:<36} {:>6} | {:>8} {:>9} | {:>8} {:>9} | {:>7} {:>6}",
        "pool", "corr", "old cov", "old prec", "new cov", "new prec", "ballots", "n_eff"
    );
    for panel in &panels {
        for (level, out) in &panel.points {
            print_row(panel.title, *level, out);
        }
    }
    // The thesis' setting: three different models at 83%, nearly deterministic (within 0.9),
    // sharing some errors (between 0.35): lands near its 97.87% precision at 47% coverage.
    let thesis = point(&[0.83; 3], 0.9, 0.35);
    print_row("thesis: 3 x 83%, within 0.9, between", 0.35, &thesis);
    if let Some(path) = &args.svg {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
        }
        let svg = render_svg(&panels, args.questions, &policy);
        std::fs::write(path, svg).with_context(|| format!("cannot write {}", path.display()))?;
        println!("wrote {}", path.display());
    }
    Ok(())
}

fn pct(p: Option<f64>) -> String {
    p.map(|p| format!("{:.1}%", p * 100.0))
        .unwrap_or_else(|| "—".to_owned())
}

fn print_row(title: &str, level: f64, out: &Outcomes) {
    println!(
        "{:<36} {:>6.2} | {:>7.1}% {:>9} | {:>7.1}% {:>9} | {:>7.1} {:>6.2}",
        title,
        level,
        out.old.coverage * 100.0,
        pct(out.old.precision),
        out.new.coverage * 100.0,
        pct(out.new.precision),
        out.mean_ballots,
        out.mean_n_eff
    );
}

/// Precision (y, 50–100%) against coverage (x, 0–100%) per panel; one polyline per rule,
/// each point labelled with its correlation level. Hand-written SVG: no plotting dependency.
fn render_svg(panels: &[Panel], questions: u64, policy: &RoutingPolicy) -> String {
    const W: f64 = 330.0;
    const PLOT_W: f64 = 250.0;
    const PLOT_H: f64 = 250.0;
    const LEFT: f64 = 55.0;
    const TOP: f64 = 50.0;
    const Y_MIN: f64 = 0.5;
    let width = W * panels.len() as f64 + 20.0;
    let height = TOP + PLOT_H + 110.0;
    let mut s = format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">
<rect width="100%" height="100%" fill="white"/>
"##
    );
    for (i, panel) in panels.iter().enumerate() {
        let x0 = 10.0 + W * i as f64 + LEFT;
        let y0 = TOP;
        let px = |c: f64| x0 + c.clamp(0.0, 1.0) * PLOT_W;
        let py = |p: f64| y0 + (1.0 - (p.clamp(Y_MIN, 1.0) - Y_MIN) / (1.0 - Y_MIN)) * PLOT_H;
        s += &format!(
            r##"<text x="{}" y="{}" text-anchor="middle" font-size="13" font-weight="bold">{}</text>
"##,
            x0 + PLOT_W / 2.0,
            y0 - 28.0,
            panel.title
        );
        s += &format!(
            r##"<text x="{}" y="{}" text-anchor="middle" fill="#555">labels: {}</text>
"##,
            x0 + PLOT_W / 2.0,
            y0 - 12.0,
            panel.axis
        );
        s += &format!(
            r##"<rect x="{x0}" y="{y0}" width="{PLOT_W}" height="{PLOT_H}" fill="none" stroke="#333"/>
"##
        );
        for tick in [0.0, 0.25, 0.5, 0.75, 1.0] {
            s += &format!(
                r##"<line x1="{x}" y1="{yb}" x2="{x}" y2="{yt}" stroke="#eee"/><text x="{x}" y="{ty}" text-anchor="middle">{l}%</text>
"##,
                x = px(tick),
                yb = y0 + PLOT_H,
                yt = y0,
                ty = y0 + PLOT_H + 14.0,
                l = (tick * 100.0) as u32
            );
        }
        for tick in [0.5, 0.6, 0.7, 0.8, 0.9, 1.0] {
            s += &format!(
                r##"<text x="{}" y="{}" text-anchor="end">{}%</text>
"##,
                x0 - 4.0,
                py(tick) + 4.0,
                (tick * 100.0).round() as u32
            );
        }
        s += &format!(
            r##"<line x1="{x0}" y1="{y}" x2="{x1}" y2="{y}" stroke="#888" stroke-dasharray="4 3"/><text x="{x1}" y="{ty}" text-anchor="end" fill="#888">95%</text>
"##,
            y = py(0.95),
            x1 = x0 + PLOT_W,
            ty = py(0.95) - 3.0
        );
        s += &format!(
            r##"<text x="{}" y="{}" text-anchor="middle">coverage (auto-resolved)</text>
"##,
            x0 + PLOT_W / 2.0,
            y0 + PLOT_H + 30.0
        );
        s += &format!(
            r##"<text x="{x}" y="{y}" text-anchor="middle" transform="rotate(-90 {x} {y})">precision on resolved</text>
"##,
            x = x0 - 38.0,
            y = y0 + PLOT_H / 2.0
        );
        for (rule, color, marker) in [("old", "#d62728", "circle"), ("new", "#1f77b4", "square")] {
            let pts: Vec<(f64, f64, f64)> = panel
                .points
                .iter()
                .filter_map(|(level, out)| {
                    let f = if rule == "old" { out.old } else { out.new };
                    f.precision.map(|p| (px(f.coverage), py(p), *level))
                })
                .collect();
            if pts.len() > 1 {
                let path: Vec<String> = pts
                    .iter()
                    .map(|(x, y, _)| format!("{x:.1},{y:.1}"))
                    .collect();
                s += &format!(
                    r##"<polyline points="{}" fill="none" stroke="{color}" stroke-width="1.5"/>
"##,
                    path.join(" ")
                );
            }
            for (x, y, level) in &pts {
                s += &if marker == "circle" {
                    format!(r##"<circle cx="{x:.1}" cy="{y:.1}" r="3.5" fill="{color}"/>"##)
                } else {
                    format!(
                        r##"<rect x="{:.1}" y="{:.1}" width="7" height="7" fill="{color}"/>"##,
                        x - 3.5,
                        y - 3.5
                    )
                };
                let dy = if marker == "circle" { -6.0 } else { 14.0 };
                s += &format!(
                    r##"<text x="{:.1}" y="{:.1}" font-size="9" fill="{color}" text-anchor="middle">{level}</text>
"##,
                    x,
                    y + dy
                );
            }
            let none = panel
                .points
                .iter()
                .filter(|(_, out)| (if rule == "old" { out.old } else { out.new }).resolved == 0)
                .count();
            if none > 0 {
                let line = if rule == "old" { 0.0 } else { 14.0 };
                s += &format!(
                    r##"<text x="{}" y="{}" font-size="10" fill="{color}">{rule}: resolves nothing at {none} of {} levels</text>
"##,
                    x0 + 6.0,
                    y0 + PLOT_H - 22.0 + line,
                    panel.points.len()
                );
            }
        }
    }
    let ly = TOP + PLOT_H + 55.0;
    s += &format!(
        r##"<circle cx="75" cy="{c}" r="3.5" fill="#d62728"/><text x="85" y="{t}">old rule: posterior ≥ {:.2}, lower bound ≥ {:.2}, kappa ≥ {:.2} on the plain counts</text>
<rect x="71.5" y="{r}" width="7" height="7" fill="#1f77b4"/><text x="85" y="{t2}">new rule: the same, and the lower bound on counts scaled to n_eff ≥ {:.2}</text>
<text x="75" y="{t3}" fill="#555">{questions} simulated yes/no questions per point; committee T = 10, M = 3, KL early stopping; models drawn uniformly per ballot. `veritas simulate --svg …`</text>
"##,
        policy.min_posterior,
        policy.min_lower_bound,
        policy.min_kappa,
        policy.min_effective_lower_bound,
        c = ly,
        t = ly + 4.0,
        r = ly + 14.5,
        t2 = ly + 22.0,
        t3 = ly + 40.0,
    );
    s += "</svg>\n";
    s
}
