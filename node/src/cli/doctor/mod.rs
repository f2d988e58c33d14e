//! `veritas doctor`: check a node's configuration against the real world before going live.
//!
//! ```text
//! veritas doctor                                  # ./veritas.toml, VERITAS__* env, defaults
//! veritas doctor --config /etc/veritas/veritas.toml --days 14 --reports-per-day 200
//! veritas doctor --json                           # one JSON object, for scripts
//! ```
//!
//! It reads the configuration, the key and the chain exactly as `veritas run` does (the same
//! loaders, the same RPC client, the same model and search clients) and prints one line per
//! check with a fix for each failure: the configuration file is readable by the user running
//! it (the service user, when run as the service runs), the RPC answers on the configured
//! chain, the oracle has code, the deployment record names the block the watcher starts from,
//! the key is an operator of the current epoch, its free stake backs the reports it will have
//! open at once (the fix names the `veritas operator stake` command), the balance pays for
//! `--days` of reports at the current gas price, the keystore is readable, the data directory
//! is writable with `--min-free-mib` free, the corpus folder and every local model file exist,
//! every juror and the planner answer one tiny structured request, the search API accepts its
//! key and the HTTP address is free. The exit status is 1 when any check fails. It sends no
//! transaction and writes nothing but a probe file it removes again.

use std::{net::SocketAddr, path::Path};

use clap::Args;
use serde::Serialize;
use serde_json::json;

use super::{
    output::{FailedWith, Output},
    run::RunArgs,
};
use crate::config::{self, Config};

mod chain;
mod services;

/// `veritas doctor` arguments.
#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// The configuration, `--data-dir` and `--http-addr`, exactly as `veritas run` takes them.
    #[command(flatten)]
    node: RunArgs,
    /// Days of reports the operator's balance must pay for.
    #[arg(long, default_value_t = 7)]
    days: u64,
    /// Reports a day to budget for.
    #[arg(long, default_value_t = 50)]
    reports_per_day: u64,
    /// Gas of one report (a finalising `submitReport` costs about 70,000).
    #[arg(long, default_value_t = 70_000)]
    gas_per_report: u64,
    /// Free space the data directory needs, in MiB.
    #[arg(long, default_value_t = 1024)]
    min_free_mib: u64,
}

/// A check's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// The check passed.
    Ok,
    /// The check failed: the node would not work as configured.
    Fail,
    /// Not applicable to this configuration, or not possible after an earlier failure.
    Skip,
}

/// One line of the checklist.
#[derive(Debug, Clone, Serialize)]
pub struct Check {
    /// The check's name (`config`, `rpc`, `chain_id`, `oracle`, `deploy_block`, `key`,
    /// `keystore`, `operator`, `stake`, `balance`, `data_dir`, `http_addr`, `corpus`,
    /// `juror[i]`, `planner`, `search`).
    pub check: String,
    /// Passed, failed or skipped.
    pub status: Status,
    /// What was found.
    pub detail: String,
    /// What to do about a failure.
    pub fix: Option<String>,
}

fn ok(check: &str, detail: impl Into<String>) -> Check {
    Check {
        check: check.to_owned(),
        status: Status::Ok,
        detail: detail.into(),
        fix: None,
    }
}

fn fail(check: &str, detail: impl Into<String>, fix: impl Into<String>) -> Check {
    Check {
        check: check.to_owned(),
        status: Status::Fail,
        detail: detail.into(),
        fix: Some(fix.into()),
    }
}

fn skip(check: &str, detail: impl Into<String>) -> Check {
    Check {
        check: check.to_owned(),
        status: Status::Skip,
        detail: detail.into(),
        fix: None,
    }
}

/// Run `veritas doctor`.
///
/// # Errors
/// When any check fails (after printing the checklist), so the exit status is non-zero.
pub async fn run(args: DoctorArgs) -> anyhow::Result<Output> {
    let checks = match config_file_check(args.node.config_file()) {
        Some(unreadable) => vec![unreadable],
        None => match args.node.load_config() {
            Ok(config) => checks(&config, &args).await,
            Err(e) => vec![fail(
                "config",
                format!("{e:#}"),
                "fix the key the error names (every key is commented in veritas.example.toml)",
            )],
        },
    };
    let failed = checks.iter().filter(|c| c.status == Status::Fail).count();
    let outcome = Output::text(
        json!({"ok": failed == 0, "failed": failed, "checks": checks}),
        render(&checks),
    );
    if failed > 0 {
        return Err(FailedWith::error(
            outcome,
            format!(
                "{failed} of {} checks failed: {}",
                checks.len(),
                checks
                    .iter()
                    .filter(|c| c.status == Status::Fail)
                    .map(|c| c.check.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }
    Ok(outcome)
}

/// The checklist as text: one line per check, the fix indented under a failure.
pub fn render(checks: &[Check]) -> String {
    let width = checks.iter().map(|c| c.check.len()).max().unwrap_or(0);
    let mut out = String::new();
    for c in checks {
        let mark = match c.status {
            Status::Ok => "ok  ",
            Status::Fail => "FAIL",
            Status::Skip => "skip",
        };
        out.push_str(&format!("{mark}  {:width$}  {}\n", c.check, c.detail));
        if let Some(fix) = &c.fix {
            out.push_str(&format!("      {:width$}  fix: {fix}\n", ""));
        }
    }
    let failed = checks.iter().filter(|c| c.status == Status::Fail).count();
    out.push_str(&format!(
        "{} checks: {} ok, {failed} failed, {} skipped\n",
        checks.len(),
        checks.iter().filter(|c| c.status == Status::Ok).count(),
        checks.iter().filter(|c| c.status == Status::Skip).count()
    ));
    out
}

/// Every check, in order; later chain checks are skipped when what they need failed.
async fn checks(config: &Config, args: &DoctorArgs) -> Vec<Check> {
    let mut out = Vec::new();
    // The key first: the chain checks need its address.
    out.push(keystore_check(config));
    let signer = match config::load_signer(&config.keys) {
        Ok(s) => {
            out.push(ok("key", format!("operator address {}", s.address())));
            Some(s)
        }
        Err(e) => {
            out.push(fail(
                "key",
                e.to_string(),
                format!(
                    "set {} (e.g. in the service's EnvironmentFile), or keys.keystore with {} or keys.keystore_password_file",
                    config::ENV_PRIVATE_KEY,
                    config::ENV_KEYSTORE_PASSWORD
                ),
            ));
            None
        }
    };
    let address = signer.as_ref().map(|s| s.address());
    out.extend(chain::checks(config, args, address).await);
    out.push(data_dir_check(&config.node.data_dir, args.min_free_mib));
    out.push(http_addr_check(config.node.http_addr));
    out.push(corpus_check(config));
    out.extend(services::model_checks(config).await);
    out.push(services::search_check(config).await);
    out
}

/// The configuration file as the user running the doctor sees it: `Some(failure)` when it
/// exists but cannot be read. The loader would stop on it too, but with the loader's words; the
/// usual cause is the service's install (a root:root 0640 file that `User=veritas` cannot read),
/// so the fix names the modes the unit's install header gives. `None`: readable, or absent (the
/// loader says what is missing).
fn config_file_check(named: Option<&Path>) -> Option<Check> {
    let path = named.unwrap_or(Path::new(config::DEFAULT_FILE));
    if named.is_none() && !path.exists() {
        return None;
    }
    match std::fs::File::open(path) {
        Ok(_) => None,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && named.is_some() => None,
        Err(e) => {
            let user = current_user();
            Some(fail(
                "config",
                format!("{} is not readable by {user}: {e}", path.display()),
                format!(
                    "let {user} read it: the service's install gives its folder root:veritas 0750 and the file root:veritas 0640 (chgrp veritas {} && chmod 0640 {}); see ops/systemd/veritas.service",
                    path.display(),
                    path.display()
                ),
            ))
        }
    }
}

/// The name (and uid) of the user this process runs as, for messages.
fn current_user() -> String {
    // SAFETY: getuid never fails and has no preconditions.
    let uid = unsafe { libc::getuid() };
    let name = std::fs::read_to_string("/etc/passwd")
        .ok()
        .and_then(|passwd| {
            passwd.lines().find_map(|line| {
                let mut fields = line.split(':');
                let name = fields.next()?;
                let id = fields.nth(1)?;
                (id.parse::<u32>().ok()? == uid).then(|| name.to_owned())
            })
        });
    match name {
        Some(name) => format!("user {name} (uid {uid})"),
        None => format!("uid {uid}"),
    }
}

/// The local corpus folder exists (a relative path resolves against the working directory: the
/// service's is its `WorkingDirectory=`, /var/lib/veritas, so the service needs absolute paths).
fn corpus_check(config: &Config) -> Check {
    let local = &config.evidence.collectors.local;
    if !local.enabled {
        return skip(
            "corpus",
            "the local corpus is off (evidence.collectors.local.enabled = false)",
        );
    }
    if local.dir.is_dir() {
        return ok("corpus", format!("{} is a folder", local.dir.display()));
    }
    let cwd = std::env::current_dir()
        .map(|d| d.display().to_string())
        .unwrap_or_else(|_| "?".to_owned());
    fail(
        "corpus",
        format!(
            "evidence.collectors.local.dir {} is not a folder (working directory {cwd})",
            local.dir.display()
        ),
        "set evidence.collectors.local.dir to the corpus folder's absolute path (e.g. /var/lib/veritas/corpus), or evidence.collectors.local.enabled = false",
    )
}

fn keystore_check(config: &Config) -> Check {
    let Some(path) = &config.keys.keystore else {
        return skip(
            "keystore",
            format!(
                "no keys.keystore configured (the key comes from {})",
                config::ENV_PRIVATE_KEY
            ),
        );
    };
    match std::fs::read(path) {
        Ok(bytes) if serde_json::from_slice::<serde_json::Value>(&bytes).is_ok() => {
            let note = if std::env::var_os(config::ENV_PRIVATE_KEY).is_some() {
                format!(" (unused: {} is set and wins)", config::ENV_PRIVATE_KEY)
            } else {
                String::new()
            };
            ok(
                "keystore",
                format!("{} is readable JSON{note}", path.display()),
            )
        }
        Ok(_) => fail(
            "keystore",
            format!("{} is not a JSON keystore", path.display()),
            "point keys.keystore at a Web3 Secret Storage file (cast wallet import writes one)",
        ),
        Err(e) => fail(
            "keystore",
            format!("{}: {e}", path.display()),
            "make the file readable by the service user (and only by it), or fix keys.keystore",
        ),
    }
}

fn data_dir_check(dir: &Path, min_free_mib: u64) -> Check {
    // The node creates the folder at start; until then its nearest existing parent must let it.
    let existing = dir
        .ancestors()
        .find(|p| p.as_os_str().is_empty() || p.is_dir())
        .map(|p| {
            if p.as_os_str().is_empty() {
                Path::new(".")
            } else {
                p
            }
        })
        .unwrap_or(Path::new("."));
    let probe = existing.join(format!(".veritas-doctor-{}", std::process::id()));
    if let Err(e) = std::fs::write(&probe, b"probe") {
        return fail(
            "data_dir",
            format!("{} is not writable: {e}", existing.display()),
            format!(
                "give the service user write access to {} (systemd: StateDirectory=), or set node.data_dir",
                dir.display()
            ),
        );
    }
    let _ = std::fs::remove_file(&probe);
    let free_mib = match free_bytes(existing) {
        Some(b) => b / (1024 * 1024),
        None => {
            return ok(
                "data_dir",
                format!("{} is writable (free space unknown)", dir.display()),
            );
        }
    };
    let what = if dir.is_dir() {
        "is writable"
    } else {
        "can be created"
    };
    if free_mib < min_free_mib {
        return fail(
            "data_dir",
            format!(
                "{} {what}, but only {free_mib} MiB free (at least {min_free_mib} MiB wanted)",
                dir.display()
            ),
            "free space on that filesystem, or move node.data_dir to a larger one",
        );
    }
    ok(
        "data_dir",
        format!("{} {what}, {free_mib} MiB free", dir.display()),
    )
}

/// Free bytes for an unprivileged user on the filesystem holding `path`.
fn free_bytes(path: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c_path = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
    let mut stat = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: `c_path` is a NUL-terminated string that outlives the call, and `stat` points
    // to writable memory of the struct's size; statvfs fills it completely on success.
    let rc = unsafe { libc::statvfs(c_path.as_ptr(), stat.as_mut_ptr()) };
    if rc != 0 {
        return None;
    }
    // SAFETY: statvfs returned 0, so it initialised the struct.
    let stat = unsafe { stat.assume_init() };
    #[allow(clippy::unnecessary_cast)] // the field types differ between platforms
    let free = (stat.f_bavail as u64).saturating_mul(stat.f_frsize as u64);
    Some(free)
}

fn http_addr_check(addr: SocketAddr) -> Check {
    match std::net::TcpListener::bind(addr) {
        Ok(listener) => {
            drop(listener);
            ok("http_addr", format!("{addr} is free"))
        }
        Err(e) => fail(
            "http_addr",
            format!("cannot listen on {addr}: {e}"),
            "stop what listens there (another veritas?), or set node.http_addr / --http-addr",
        ),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn a_bound_address_fails_and_a_free_one_passes() {
        let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = taken.local_addr().unwrap();
        let check = http_addr_check(addr);
        assert_eq!(check.status, Status::Fail, "{check:?}");
        assert!(check.fix.is_some());
        drop(taken);
        assert_eq!(http_addr_check(addr).status, Status::Ok);
    }

    #[test]
    fn the_data_dir_is_checked_where_the_node_will_create_it() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("a/b");
        let check = data_dir_check(&missing, 0);
        assert_eq!(check.status, Status::Ok, "{check:?}");
        assert!(check.detail.contains("can be created"), "{check:?}");
        assert!(!missing.exists(), "the doctor created the folder");
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "probe left behind"
        );
        let full = data_dir_check(dir.path(), u64::MAX);
        assert_eq!(full.status, Status::Fail, "{full:?}");
        assert!(full.detail.contains("MiB free"), "{full:?}");
    }

    #[test]
    fn the_checklist_shows_a_fix_under_each_failure() {
        let text = render(&[
            ok("rpc", "answers"),
            fail("chain_id", "wrong chain", "point it elsewhere"),
            skip("oracle", "needs the configured chain"),
        ]);
        assert_eq!(
            text,
            "ok    rpc       answers\n\
             FAIL  chain_id  wrong chain\n\
             \x20               fix: point it elsewhere\n\
             skip  oracle    needs the configured chain\n\
             3 checks: 1 ok, 1 failed, 1 skipped\n"
        );
    }
}
