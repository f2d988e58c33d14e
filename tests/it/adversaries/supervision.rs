//! Whatever input finds a panic left in the node, supervision decides what it costs: a
//! panicking job fails its own question, once; a panicking critical task stops the node loudly,
//! naming the task, never silently. The panics are planted with the debug build's test crash
//! points (`VERITAS_TEST_CRASH_AT=<point>:<n>:panic`), in the real binary on anvil.

use std::time::Duration;

use alloy::primitives::U256;

use crate::support::{Chain, Node};
use veritas::devnet::AnvilOptions;

const REPLAY: &str = r#"{"default": {"votes": ["YES", "YES", "NO", "YES", "NULL", "YES"]}}"#;

/// The job's stage, attempts and last error, through the node's store.
fn job(node: &Node, id: U256) -> (String, u32, Option<String>) {
    let job = node
        .store()
        .unwrap()
        .job(id)
        .unwrap()
        .expect("the job is stored");
    (job.stage.as_str().to_owned(), job.attempts, job.last_error)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_job_fails_its_question_once_and_the_node_answers_the_next() {
    let chain = Chain::start(AnvilOptions::default()).await;
    let mut node = Node::configure(&chain, REPLAY, "");
    node.start_with_env(&[("VERITAS_TEST_CRASH_AT", "job.resolving:1:panic")]);
    let doomed = chain.ask(&["The one whose job panics?"]).await[0];
    node.wait_stage(doomed, "failed", Duration::from_secs(30))
        .await;
    let (_, attempts, reason) = job(&node, doomed);
    let reason = reason.unwrap();
    assert!(
        reason.contains("job panicked: test crash point job.resolving"),
        "{reason}"
    );
    assert_eq!(attempts, 1, "dispatched once");

    let next = chain.ask(&["The next one?"]).await[0];
    chain.wait_verdicts(&[next], Duration::from_secs(60)).await;
    assert_eq!(chain.verdict_events(doomed).await, 0);
    assert_eq!(job(&node, doomed).1, 1, "never dispatched again");
    node.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_watcher_stops_the_node_naming_it() {
    let chain = Chain::start(AnvilOptions::default()).await;
    let mut node = Node::configure(&chain, REPLAY, "");
    node.start_with_env(&[("VERITAS_TEST_CRASH_AT", "scan.recorded:1:panic")]);
    chain.ask(&["Who watches the watcher?"]).await;
    let status = node
        .wait_exit(Duration::from_secs(30))
        .expect("the node stops");
    assert_ne!(status.code(), Some(0), "{}", node.log_text());
    let log = node.log_text();
    assert!(
        log.contains("critical task chain watcher panicked: test crash point scan.recorded"),
        "{log}"
    );
}
