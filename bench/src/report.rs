//! The one table: each figure beside its baseline, measured in alternation.
//!
//! Criterion measures one bench after another, so a neighbour's compile that
//! starts between a figure and its baseline moves the ratio by tens of
//! percent on a two-core machine (seen here: a hook that never fires
//! "costing" 1.35× a run without it). So each row of the table is measured
//! once more, after criterion's own runs of the two benches: the figure and
//! its baseline in short batches, taken in turn (A B, B A, A B, …), and the
//! row reports the median batch time of each and the median of the per-round
//! ratios. Whatever slows the machine for longer than a round slows both
//! sides of the ratio alike.
//!
//! A row is measured only when criterion ran both of its benches in this
//! process (their `estimates.json` are fresh), so criterion's filter, and its
//! `--test` and `--list` modes, decide which rows there are.

use std::fmt::Write as _;
use std::hint::black_box;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant, SystemTime};

/// What a row must show to meet its target.
#[derive(Debug, Clone, Copy)]
pub enum Target {
    /// figure / baseline at most this.
    Ratio(f64),
    /// The figure at most this many nanoseconds per unit.
    Nanos(f64),
    /// No target: the row is there to be read.
    None,
}

/// One line of the table.
#[derive(Debug, Clone, Copy)]
pub struct Row {
    /// What is measured, in a few words.
    pub what: &'static str,
    /// The criterion id (`group/function`) of the figure.
    pub figure: &'static str,
    /// What it is compared with, in a few words.
    pub vs: &'static str,
    /// The criterion id of that.
    pub baseline: &'static str,
    /// How many units one call of either side does (27 lookups, one
    /// event): both sides are divided by it.
    pub per: f64,
    /// The unit, as `per` counts it.
    pub unit: &'static str,
    /// The target, from the issue.
    pub target: Target,
}

/// A row's result: nanoseconds per unit of each side, and their ratio.
#[derive(Debug, Clone, Copy)]
pub struct Paired {
    /// The figure, median over rounds.
    pub figure_ns: f64,
    /// The baseline, median over rounds.
    pub baseline_ns: f64,
    /// The median of the per-round ratios.
    pub ratio: f64,
}

/// How many rounds each row takes: each round is one batch of each side.
const ROUNDS: usize = 40;

/// How long one batch of one side should last.
const BATCH: Duration = Duration::from_millis(4);

/// The table, filled as the benches run.
#[derive(Debug)]
pub struct Table {
    home: PathBuf,
    since: SystemTime,
    rows: Vec<(Row, Paired)>,
}

impl Table {
    /// An empty table for the benches criterion runs from now on.
    pub fn new() -> Self {
        Table {
            home: criterion_home(),
            since: SystemTime::now(),
            rows: Vec::new(),
        }
    }

    /// Measures `row` when criterion ran both its benches: `figure` and
    /// `baseline` in alternating batches, `reset` called before each batch,
    /// outside the time (to empty a file a batch appended to). Returns
    /// the result, which is also the table's.
    pub fn pair<R, U>(
        &mut self,
        row: Row,
        reset: impl FnMut(),
        figure: impl FnMut() -> R,
        baseline: impl FnMut() -> U,
    ) -> Option<Paired> {
        self.pair_rounds(row, ROUNDS, reset, figure, baseline)
    }

    /// [`pair`](Self::pair) in `rounds` rounds: for a figure whose one call
    /// lasts seconds (a whole run with a hook that sleeps), where 40 rounds
    /// would take many minutes.
    pub fn pair_rounds<R, U>(
        &mut self,
        row: Row,
        rounds: usize,
        mut reset: impl FnMut(),
        mut figure: impl FnMut() -> R,
        mut baseline: impl FnMut() -> U,
    ) -> Option<Paired> {
        if !self.ran(row.figure) || !self.ran(row.baseline) {
            return None;
        }
        let iters = calibrate(&mut reset, &mut figure).max(calibrate(&mut reset, &mut baseline));
        let mut figures = Vec::with_capacity(rounds);
        let mut baselines = Vec::with_capacity(rounds);
        let mut ratios = Vec::with_capacity(rounds);
        for round in 0..rounds {
            let (f, b) = if round % 2 == 0 {
                let f = batch(iters, &mut reset, &mut figure);
                (f, batch(iters, &mut reset, &mut baseline))
            } else {
                let b = batch(iters, &mut reset, &mut baseline);
                (batch(iters, &mut reset, &mut figure), b)
            };
            figures.push(f);
            baselines.push(b);
            ratios.push(f / b);
        }
        let per_unit = iters as f64 * row.per;
        let paired = Paired {
            figure_ns: median(&mut figures) / per_unit,
            baseline_ns: median(&mut baselines) / per_unit,
            ratio: median(&mut ratios),
        };
        self.rows.push((row, paired));
        Some(paired)
    }

    /// Adds a row computed from others rather than measured.
    pub fn push(&mut self, row: Row, paired: Paired) {
        self.rows.push((row, paired));
    }

    fn ran(&self, id: &str) -> bool {
        let path = self.home.join(id).join("new").join("estimates.json");
        std::fs::metadata(&path)
            .and_then(|m| m.modified())
            .is_ok_and(|t| t >= self.since)
    }

    /// Whether no row was measured.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The table, in Markdown.
    pub fn markdown(&self) -> String {
        let mut out = String::new();
        out.push_str("| figure | time | baseline | time | ratio | target | met |\n");
        out.push_str("| --- | ---: | --- | ---: | ---: | --- | --- |\n");
        for (row, p) in &self.rows {
            let (target, met) = match row.target {
                Target::Ratio(max) => (format!("≤ {max}×"), p.ratio <= max),
                Target::Nanos(max) => (format!("≤ {max} ns"), p.figure_ns <= max),
                Target::None => ("—".to_owned(), true),
            };
            let met = match row.target {
                Target::None => "",
                _ if met => "yes",
                _ => "**no**",
            };
            let _ = writeln!(
                out,
                "| {} | {}{} | {} | {} | {:.3}× | {target} | {met} |",
                row.what,
                human(p.figure_ns),
                row.unit,
                row.vs,
                human(p.baseline_ns),
                p.ratio,
            );
        }
        out
    }
}

impl Default for Table {
    fn default() -> Self {
        Self::new()
    }
}

/// How many calls of `f` make a batch of about [`BATCH`].
fn calibrate<R>(reset: &mut impl FnMut(), f: &mut impl FnMut() -> R) -> u64 {
    let mut iters = 1u64;
    loop {
        let ns = batch(iters, reset, f);
        if ns >= BATCH.as_nanos() as f64 || iters >= 1 << 30 {
            return iters;
        }
        // Aim at the batch length, at most ×16 a step.
        let scale = (BATCH.as_nanos() as f64 / ns.max(1.0)).clamp(2.0, 16.0);
        iters = (iters as f64 * scale).ceil() as u64;
    }
}

/// The nanoseconds `iters` calls of `f` take, after an untimed `reset`.
fn batch<R>(iters: u64, reset: &mut impl FnMut(), f: &mut impl FnMut() -> R) -> f64 {
    reset();
    let start = Instant::now();
    for _ in 0..iters {
        black_box(f());
    }
    start.elapsed().as_nanos() as f64
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

/// Where criterion keeps its results, found as criterion finds it:
/// `$CRITERION_HOME`, else `$CARGO_TARGET_DIR/criterion`, else the target
/// directory `cargo metadata` names, joined with `criterion`.
pub fn criterion_home() -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return PathBuf::from(home);
    }
    if let Some(target) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(target).join("criterion");
    }
    let from_metadata = std::env::var_os("CARGO").and_then(|cargo| {
        let out = Command::new(cargo)
            .args(["metadata", "--format-version", "1", "--no-deps"])
            .output()
            .ok()?;
        let meta: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
        Some(PathBuf::from(meta["target_directory"].as_str()?))
    });
    from_metadata
        .unwrap_or_else(|| PathBuf::from("target"))
        .join("criterion")
}

/// A duration in nanoseconds, in the unit that keeps three figures.
pub fn human(ns: f64) -> String {
    if ns < 10.0 {
        format!("{ns:.2} ns")
    } else if ns < 1_000.0 {
        format!("{ns:.1} ns")
    } else if ns < 1_000_000.0 {
        format!("{:.2} µs", ns / 1e3)
    } else if ns < 1_000_000_000.0 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.2} s", ns / 1e9)
    }
}
