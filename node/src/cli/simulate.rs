//! `veritas simulate`: precision and coverage of the old and the new routing rule on synthetic
//! juror pools whose errors are correlated (see [`crate::policy::simulate`]).
//!
//! Without `--accuracy` it runs the four panels of the book's routing chapter (its simulation
//! figure) — one model at 80%, two models at 80%, three independent models at 80%, each with
//! rising correlation between a model's own ballots, and three models at 80% with rising
//! correlation between models — plus the thesis
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

use super::output::Output;
use crate::plot::{self, Chart, Marker, Series};
use crate::policy::RoutingPolicy;
use crate::policy::simulate::{Outcomes, RuleFigures, Scenario, Shape, run};

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
pub fn run_command(args: SimulateArgs) -> anyhow::Result<Output> {
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
        // JSON with or without `--json`.
        return Ok(Output::json(
            serde_json::to_value(&out)?,
            serde_json::to_string(&out)?,
        ));
    }
    let (panels, thesis) = standard_points(&args, &shape, &policy);
    let mut human = table(&panels, &thesis);
    let mut value = serde_json::json!({
        "panels": panels.iter().map(|p| serde_json::json!({"title": p.title, "axis": p.axis,
            "points": p.points.iter().map(|(level, out)| serde_json::json!({"level": level, "outcomes": out}))
                .collect::<Vec<_>>()})).collect::<Vec<_>>(),
        "thesis": thesis,
    });
    if let Some(path) = &args.svg {
        write_svg(path, &render_svg(&panels, args.questions, &policy))?;
        human.push(format!("wrote {}", path.display()));
        value["svg"] = serde_json::json!(path);
    }
    Ok(Output::lines(value, &human))
}

/// The four standard panels, then the thesis point; each point runs on the next seed, in this
/// order, so the figure is reproducible from `--seed`.
fn standard_points(
    args: &SimulateArgs,
    shape: &Shape,
    policy: &RoutingPolicy,
) -> ([Panel; 4], Outcomes) {
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
            shape,
            policy,
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
    // The thesis' setting: three different models at 83%, nearly deterministic (within 0.9),
    // sharing some errors (between 0.35): lands near its 97.87% precision at 47% coverage.
    let thesis = point(&[0.83; 3], 0.9, 0.35);
    (panels, thesis)
}

/// The text table: a header, one row per panel point, the thesis row last.
fn table(panels: &[Panel], thesis: &Outcomes) -> Vec<String> {
    let mut human = vec![format!(
        "{:<36} {:>6} | {:>8} {:>9} | {:>8} {:>9} | {:>7} {:>6}",
        "pool", "corr", "old cov", "old prec", "new cov", "new prec", "ballots", "n_eff"
    )];
    for panel in panels {
        for (level, out) in &panel.points {
            human.push(row(panel.title, *level, out));
        }
    }
    human.push(row("thesis: 3 x 83%, within 0.9, between", 0.35, thesis));
    human
}

/// Write the picture, creating its directory first.
fn write_svg(path: &std::path::Path, svg: &str) -> anyhow::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    std::fs::write(path, svg).with_context(|| format!("cannot write {}", path.display()))
}

fn pct(p: Option<f64>) -> String {
    p.map(|p| format!("{:.1}%", p * 100.0))
        .unwrap_or_else(|| "—".to_owned())
}

fn row(title: &str, level: f64, out: &Outcomes) -> String {
    format!(
        "{:<36} {:>6.2} | {:>7.1}% {:>9} | {:>7.1}% {:>9} | {:>7.1} {:>6.2}",
        title,
        level,
        out.old.coverage * 100.0,
        pct(out.old.precision),
        out.new.coverage * 100.0,
        pct(out.new.precision),
        out.mean_ballots,
        out.mean_n_eff
    )
}

/// The two rules as drawn: name, colour, marker.
const RULES: [(&str, &str, Marker); 2] = [
    ("old", "#d62728", Marker::Circle),
    ("new", "#1f77b4", Marker::Square),
];

/// One rule's outcome at a point.
fn pick(rule: &str, out: &Outcomes) -> RuleFigures {
    if rule == "old" { out.old } else { out.new }
}

/// Precision (y, 50–100%) against coverage (x, 0–100%) per panel; one line per rule, each
/// point labelled with its correlation level (drawn by [`crate::plot`]).
fn render_svg(panels: &[Panel], questions: u64, policy: &RoutingPolicy) -> String {
    let charts: Vec<Chart> = panels.iter().map(panel_chart).collect();
    plot::svg_panels(
        &charts,
        &legend(policy),
        &[format!(
            "{questions} simulated yes/no questions per point; committee T = 10, M = 3, KL early stopping; models drawn uniformly per ballot. `veritas simulate --svg …`"
        )],
    )
}

/// One panel's chart: a series per rule, and a note for each rule that resolves nothing at
/// some levels (those points have no precision to draw).
fn panel_chart(panel: &Panel) -> Chart {
    Chart {
        title: panel.title.into(),
        subtitle: format!("labels: {}", panel.axis),
        x_label: "coverage (auto-resolved)".into(),
        y_label: "precision on resolved".into(),
        y_min: 0.5,
        y_ticks: vec![0.5, 0.6, 0.7, 0.8, 0.9, 1.0],
        x_ticks: vec![0.0, 0.25, 0.5, 0.75, 1.0],
        series: RULES
            .iter()
            .map(|&(rule, color, marker)| rule_series(panel, rule, color, marker))
            .collect(),
        reference: Some((0.95, "95%".into())),
        inner_notes: RULES
            .iter()
            .filter_map(|&(rule, color, _)| {
                let none = panel
                    .points
                    .iter()
                    .filter(|(_, out)| pick(rule, out).resolved == 0)
                    .count();
                (none > 0).then(|| {
                    let of = panel.points.len();
                    (
                        format!("{rule}: resolves nothing at {none} of {of} levels"),
                        color,
                    )
                })
            })
            .collect(),
        ..Chart::default()
    }
}

/// A rule's points in one panel, each labelled with its level; levels where the rule resolved
/// nothing have no precision and are left out.
fn rule_series(panel: &Panel, rule: &str, color: &'static str, marker: Marker) -> Series {
    let resolved: Vec<_> = panel
        .points
        .iter()
        .filter_map(|(level, out)| {
            let f = pick(rule, out);
            f.precision.map(|p| ((f.coverage, p), level.to_string()))
        })
        .collect();
    Series {
        name: rule.into(),
        color,
        points: resolved.iter().map(|r| r.0).collect(),
        point_labels: resolved.into_iter().map(|r| r.1).collect(),
        marker,
    }
}

/// The legend: each rule's thresholds, in its colour and marker.
fn legend(policy: &RoutingPolicy) -> Vec<Series> {
    [
        format!(
            "old rule: posterior ≥ {:.2}, lower bound ≥ {:.2}, kappa ≥ {:.2} on the plain counts",
            policy.min_posterior, policy.min_lower_bound, policy.min_kappa
        ),
        format!(
            "new rule: the same, and the lower bound on counts scaled to n_eff ≥ {:.2}",
            policy.min_effective_lower_bound
        ),
    ]
    .into_iter()
    .zip(RULES)
    .map(|(name, (_, color, marker))| Series {
        name,
        color,
        point_labels: vec![String::new()],
        marker,
        ..Series::default()
    })
    .collect()
}
