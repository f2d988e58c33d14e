//! The operator quickstart (`book/src/quickstart-operator.md`), run as written: every block
//! marked `<!-- quickstart: NAME -->` is taken from the page and run with `bash -euo pipefail`
//! against an anvil posing as Sepolia (`--chain-id 11155111 --block-time 1`), with three
//! operators and the page's own quorum, bond and fees; the real `forge script`, the real
//! `script/record-deployment.js` and three real `veritas run` processes.
//!
//! The blocks are parametrised only through the variables the page's "What you need" block
//! exports (the test checks it sets no other, bar the one the page names for the test:
//! `VERITAS__NODE__RESOLVER=replay`), so a block changed in the page is what runs here. The
//! outcome is read from the chain, never from the blocks' text: the question `Resolved` with
//! at least two reports and a YES-leaning triple, each operator's stake up by the page's 0.1
//! ETH, and after the withdrawals no free stake and no credits left.
//!
//! The blocks run in a copy of the repository's contracts (not their tests), scripts and
//! `foundry.toml` under `CARGO_TARGET_TMPDIR` (tools and corpus linked): `forge script` writes
//! `deployments/11155111.json` and `broadcast/`, which must never land in the work tree. The
//! copy keeps forge's `out/` and `cache/` between runs, so only the first run compiles the
//! deploy script.

use std::{
    collections::{BTreeMap, BTreeSet},
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    time::Duration,
};

use alloy::{
    primitives::{Address, U256},
    providers::ProviderBuilder,
};
use veritas::{
    contract::IVeritasOracle::{self, VerdictStatus},
    devnet::{ANVIL_KEYS, Anvil, AnvilOptions, repo_root, tool},
};

use crate::support::{address, wait};

const PAGE: &str = "book/src/quickstart-operator.md";
/// The page's executed blocks, in the order the test runs them.
const BLOCKS: [&str; 8] = [
    "deploy",
    "configure",
    "stake",
    "doctor",
    "run",
    "ask",
    "watch",
    "withdraw",
];
const SEPOLIA: u64 = 11_155_111;
const DEPLOYER: usize = 0;
const OPERATORS: [usize; 3] = [1, 3, 4];
const JUDGE: usize = 6;
const ASKER: usize = 2;
/// The page stakes 0.1 ETH per operator.
const STAKE: u128 = 100_000_000_000_000_000;
const WAIT: Duration = Duration::from_secs(120);

/// The page's blocks by name: the ```sh fence right after each `<!-- quickstart: NAME -->`.
fn blocks(page: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let lines: Vec<&str> = page.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let Some(name) = line
            .strip_prefix("<!-- quickstart: ")
            .and_then(|rest| rest.strip_suffix(" -->"))
        else {
            continue;
        };
        assert_eq!(
            lines.get(i + 1).map(|l| l.trim()),
            Some("```sh"),
            "{PAGE}:{}: the marker of {name} must sit right above a ```sh block",
            i + 1
        );
        let body: Vec<&str> = lines[i + 2..]
            .iter()
            .take_while(|l| l.trim() != "```")
            .copied()
            .collect();
        let previous = out.insert(name.to_owned(), body.join("\n") + "\n");
        assert!(previous.is_none(), "{PAGE}: two blocks named {name}");
    }
    out
}

/// The variables the page's "What you need" block exports (`export NAME=`).
fn documented(page: &str) -> BTreeSet<String> {
    let start = page
        .find("export SEPOLIA_RPC_URL=")
        .expect("the page's variables block");
    let block = &page[start..page[start..].find("```").map_or(page.len(), |e| start + e)];
    block
        .lines()
        .filter_map(|l| l.trim().strip_prefix("export "))
        .filter_map(|l| l.split('=').next())
        .map(str::to_owned)
        .collect()
}

/// The scratch copy of the repository the blocks run in (see the module doc).
fn clone_repo(repo: &Path) -> PathBuf {
    let clone = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("quickstart-clone");
    std::fs::create_dir_all(&clone).unwrap();
    for stale in [
        "contracts",
        "script",
        "deployments",
        "broadcast",
        "foundry.toml",
        "tools",
        "corpus",
    ] {
        let path = clone.join(stale);
        if path.is_symlink() || path.is_file() {
            std::fs::remove_file(&path).unwrap();
        } else if path.exists() {
            std::fs::remove_dir_all(&path).unwrap();
        }
    }
    let copied = Command::new("cp")
        .args(["-R", "contracts", "script", "foundry.toml"])
        .arg(&clone)
        .current_dir(repo)
        .status()
        .unwrap();
    assert!(copied.success(), "copying the contracts: {copied}");
    // The deploy script needs the contracts, not their tests (whose via-IR compile is at the
    // wasm solc's memory limit, and takes minutes).
    std::fs::remove_dir_all(clone.join("contracts/test")).unwrap();
    for linked in ["tools", "corpus"] {
        std::os::unix::fs::symlink(repo.join(linked), clone.join(linked)).unwrap();
    }
    std::fs::create_dir(clone.join("deployments")).unwrap();
    // A first run starts from the repository's own build when `make test-forge` made one (its
    // via-IR compile holds the deploy script, which `contracts/test/Deploy.t.sol` imports):
    // forge's cache is keyed by relative paths and content hashes, so nothing is compiled again.
    if !clone.join("out").exists()
        && repo.join("out/Deploy.s.sol").is_dir()
        && repo.join("cache").is_dir()
    {
        let warmed = Command::new("cp")
            .args(["-R", "out", "cache"])
            .arg(&clone)
            .current_dir(repo)
            .status()
            .unwrap();
        assert!(warmed.success(), "copying forge's build: {warmed}");
    }
    clone
}

/// Runs the page's blocks: the clone as working directory, `veritas` on PATH, and only the
/// variables given (every `VERITAS_*` of the test's own environment removed).
struct Runner {
    clone: PathBuf,
    bin: tempfile::TempDir,
    page: BTreeMap<String, String>,
    documented: BTreeSet<String>,
}

impl Runner {
    fn command(&self, name: &str, vars: &[(&str, String)]) -> Command {
        let script = self
            .page
            .get(name)
            .unwrap_or_else(|| panic!("{PAGE} has no block {name}"));
        let mut cmd = Command::new("bash");
        cmd.args(["-euo", "pipefail", "-c", script])
            .current_dir(&self.clone)
            .env(
                "PATH",
                format!(
                    "{}:{}",
                    self.bin.path().display(),
                    std::env::var("PATH").unwrap_or_default()
                ),
            )
            .env("NO_COLOR", "1")
            .stdin(Stdio::null());
        for (key, _) in std::env::vars() {
            if key.starts_with("VERITAS") {
                cmd.env_remove(key);
            }
        }
        for (key, value) in vars {
            assert!(
                self.documented.contains(*key) || *key == "VERITAS__NODE__RESOLVER",
                "the test sets {key}, which the page's variables block does not export"
            );
            cmd.env(key, value);
        }
        cmd
    }

    /// Run block `name` to completion; its stdout. Panics with both streams on failure.
    fn run(&self, name: &str, vars: &[(&str, String)]) -> String {
        let out = self.command(name, vars).output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(
            out.status.success(),
            "{PAGE}, block {name}: {}\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
            out.status
        );
        eprintln!("quickstart: block {name} ok");
        stdout
    }

    /// Start block `name` in the background, its own process group, output to `log`.
    fn spawn(&self, name: &str, vars: &[(&str, String)], log: &Path) -> Child {
        let file = std::fs::File::create(log).unwrap();
        let mut cmd = self.command(name, vars);
        cmd.stdout(file.try_clone().unwrap()).stderr(file);
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        cmd.spawn().unwrap()
    }
}

/// SIGTERM to the process group of `child` (bash and the `veritas run` it started), then wait.
fn terminate(child: &mut Child) {
    let pgid = i32::try_from(child.id()).unwrap();
    // SAFETY: kill(2) with a negative pid signals that process group: the one this test
    // created for the child (process_group(0)), and nothing else.
    unsafe {
        libc::kill(-pgid, libc::SIGTERM);
    }
    wait::until_blocking(
        Duration::from_secs(30),
        || "a node ignored SIGTERM".to_owned(),
        || child.try_wait().unwrap(),
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_operator_quickstart_runs_as_written() {
    let repo = repo_root().expect("the repository");
    let text = std::fs::read_to_string(repo.join(PAGE)).unwrap();
    let page = blocks(&text);
    assert_eq!(
        page.keys().map(String::as_str).collect::<BTreeSet<_>>(),
        BTreeSet::from(BLOCKS),
        "{PAGE}: the executed blocks"
    );
    let bin = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_veritas"), bin.path().join("veritas")).unwrap();
    assert!(tool("forge").is_file(), "forge: run `make setup`");
    let runner = Runner {
        clone: clone_repo(&repo),
        bin,
        page,
        documented: documented(&text),
    };
    let anvil = Anvil::spawn(AnvilOptions {
        chain_id: Some(SEPOLIA),
        block_time: Some(1),
        ..AnvilOptions::default()
    })
    .await
    .expect("anvil starts (run `make setup`)");

    let operators: Vec<String> = OPERATORS.iter().map(|&k| address(k).to_string()).collect();
    let common = vec![
        ("SEPOLIA_RPC_URL", anvil.url.clone()),
        ("PRIVATE_KEY", ANVIL_KEYS[DEPLOYER].to_owned()),
        ("VERITAS_OPERATORS", operators.join(",")),
        ("VERITAS_JUDGES", address(JUDGE).to_string()),
        ("VERITAS_OWNER", address(DEPLOYER).to_string()),
    ];
    // 1. Deploy and record.
    runner.run("deploy", &common);
    let record: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(runner.clone.join(format!("deployments/{SEPOLIA}.json"))).unwrap(),
    )
    .unwrap();
    let oracle: Address = record["address"].as_str().unwrap().parse().unwrap();
    assert!(
        record["deployBlock"].as_u64().is_some_and(|b| b > 0),
        "no deployBlock in the record: {record}"
    );
    let provider = ProviderBuilder::new().connect_http(anvil.url.parse().unwrap());
    let view = IVeritasOracle::new(oracle, &provider);
    let params = view.parameters().call().await.unwrap();
    assert_eq!(params.quorum, 2, "the page's quorum");
    assert_ne!(
        params.revealWindow, 0,
        "the page deploys a commit-reveal set (the script refuses reports in the clear)"
    );

    // 2-4. Each operator configures, stakes and checks its node.
    let nodes = tempfile::tempdir().unwrap();
    let node_vars = |i: usize| {
        let mut vars = common.clone();
        vars.extend([
            ("VERITAS_PRIVATE_KEY", ANVIL_KEYS[OPERATORS[i]].to_owned()),
            (
                "NODE_DIR",
                nodes
                    .path()
                    .join(format!("node{}", i + 1))
                    .display()
                    .to_string(),
            ),
            ("NODE_HTTP_ADDR", "127.0.0.1:0".to_owned()),
            ("VERITAS__NODE__RESOLVER", "replay".to_owned()),
        ]);
        vars
    };
    for (i, &key) in OPERATORS.iter().enumerate() {
        for block in ["configure", "stake", "doctor"] {
            runner.run(block, &node_vars(i));
        }
        let stake = view.operatorStake(address(key)).call().await.unwrap();
        assert_eq!(stake.staked, U256::from(STAKE), "operator {i}'s stake");
    }

    // 5. Run the three nodes.
    let mut running: Vec<Child> = (0..OPERATORS.len())
        .map(|i| {
            runner.spawn(
                "run",
                &node_vars(i),
                &nodes.path().join(format!("node{}.log", i + 1)),
            )
        })
        .collect();

    // 6. Ask, wait for the chain to say Resolved, watch.
    let mut ask = node_vars(0);
    ask.push(("ASKER_KEY", ANVIL_KEYS[ASKER].to_owned()));
    let printed = runner.run("ask", &ask);
    let id: U256 = printed
        .lines()
        .last()
        .unwrap_or_default()
        .trim()
        .parse()
        .unwrap_or_else(|e| panic!("the ask block printed no id ({e}): {printed:?}"));
    wait::until(
        WAIT,
        || {
            let logs: Vec<String> = (1..=3)
                .map(|i| {
                    std::fs::read_to_string(nodes.path().join(format!("node{i}.log")))
                        .unwrap_or_default()
                })
                .collect();
            format!("question {id} is not Resolved; node logs:\n{logs:#?}")
        },
        async || {
            let status = view.verdictStatus(id).call().await.unwrap();
            (status == VerdictStatus::Resolved).then_some(())
        },
    )
    .await;
    let verdict = view.getVerdict(id).call().await.unwrap();
    assert!(
        verdict.pYes > verdict.pNo,
        "the replayed YES, YES, NO ballots lean YES"
    );
    let mut watch = node_vars(0);
    watch.push(("ID", id.to_string()));
    runner.run("watch", &watch);

    // 7. Stop the nodes, then each operator takes its free stake and credits back.
    for child in &mut running {
        terminate(child);
    }
    for (i, &key) in OPERATORS.iter().enumerate() {
        runner.run("withdraw", &node_vars(i));
        let operator = address(key);
        let stake = view.operatorStake(operator).call().await.unwrap();
        assert_eq!(stake.staked, stake.locked, "operator {i} left free stake");
        let credits = view.credits(operator).call().await.unwrap();
        assert_eq!(credits, U256::ZERO, "operator {i} left credits");
    }
}
