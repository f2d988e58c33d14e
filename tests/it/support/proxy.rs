//! A fault-injecting JSON-RPC proxy between the node and anvil.
//!
//! A test double of an unreliable RPC provider: every request is forwarded to a real anvil,
//! but some exchanges are broken on purpose. It speaks just enough HTTP/1.1 itself (one
//! request per connection, answered with `Connection: close`) so that it can also close a
//! connection with no HTTP answer at all, which an HTTP framework would not let it do.
//!
//! Faults come from a seeded schedule: the fault of the k-th request is a pure function of
//! `(seed, k)`, so a failing run replays the same sequence of faults with the same seed.
//! (Which request is the k-th still depends on timing; the schedule itself does not.) A test
//! that must see every kind asks for them outright (`every_kind_from`, `underpriced_first`)
//! rather than hoping the draws and the timing bring each one.

use std::{
    collections::BTreeMap,
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
    time::Duration,
};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::{TcpListener, TcpStream},
};

/// What the proxy does to one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// The connection is closed before the request is forwarded: no HTTP answer.
    DropBefore,
    /// The request is forwarded (it took effect), then the connection is closed unanswered.
    DropAfter,
    /// The answer comes after an added delay.
    Delay(Duration),
    /// HTTP 429 with `Retry-After: 1`; not forwarded.
    RateLimited,
    /// HTTP 500, 502 or 503; not forwarded.
    ServerError(u16),
    /// Forwarded (it took effect), then answered 502: the answer was lost.
    LostAnswer,
    /// `eth_sendRawTransaction` answered as geth answers a same-nonce transaction that does not
    /// pay 10% more than the one in its pool (-32000 "replacement transaction underpriced");
    /// not forwarded.
    Underpriced,
    /// `eth_getLogs` over more than `max_range` blocks refused (-32602); not a random fault.
    RangeRefused,
    /// An `eth_getLogs` page that holds logs answered `[]` (a lagging provider backend).
    EmptyPage,
}

impl Fault {
    /// The name faults are counted under.
    pub fn kind(self) -> &'static str {
        match self {
            Fault::DropBefore => "dropped connection (before forwarding)",
            Fault::DropAfter => "dropped connection (after forwarding)",
            Fault::Delay(_) => "delay",
            Fault::RateLimited => "429 Retry-After",
            Fault::ServerError(500) => "500",
            Fault::ServerError(502) => "502",
            Fault::ServerError(_) => "503",
            Fault::LostAnswer => "502 after forwarding (lost answer)",
            Fault::Underpriced => "replacement transaction underpriced",
            Fault::RangeRefused => "eth_getLogs range refused",
            Fault::EmptyPage => "eth_getLogs empty page",
        }
    }
}

/// Which faults to inject, and how often.
#[derive(Debug, Clone)]
pub struct FaultPlan {
    /// Seed of the schedule.
    pub seed: u64,
    /// Per mille of requests that get one of the generic faults (drops, delays, 429, 5xx,
    /// lost answers), chosen uniformly among them.
    pub per_mille: u32,
    /// Per mille of `eth_sendRawTransaction` answered "replacement transaction underpriced".
    pub underpriced_per_mille: u32,
    /// `eth_getLogs` over more blocks than this is refused.
    pub max_range: u64,
    /// How many `eth_getLogs` pages that hold logs are answered empty (the first ones seen).
    pub empty_pages: u64,
    /// Longest added delay.
    pub max_delay: Duration,
    /// Requests `k..k + 8` get the eight generic faults, one each in turn, whatever the draws:
    /// a run of more requests than that injects every generic kind.
    pub every_kind_from: Option<u64>,
    /// How many `eth_sendRawTransaction` (the first ones seen) are answered "replacement
    /// transaction underpriced", besides the drawn ones.
    pub underpriced_first: u64,
}

impl FaultPlan {
    /// No random faults; only ranges above `max_range` refused.
    pub fn quiet(max_range: u64) -> Self {
        Self {
            seed: 0,
            per_mille: 0,
            underpriced_per_mille: 0,
            max_range,
            empty_pages: 0,
            max_delay: Duration::from_millis(1_000),
            every_kind_from: None,
            underpriced_first: 0,
        }
    }

    /// The scheduled fault of request `k` (before method-specific ones).
    pub fn fault_for(&self, k: u64, method: &str) -> Option<Fault> {
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        rng.set_stream(k);
        if let Some(from) = self.every_kind_from
            && (from..from + 8).contains(&k)
        {
            return Some(self.generic((k - from) as i32, &mut rng));
        }
        if method == "eth_sendRawTransaction"
            && rng.random_range(0..1000) < self.underpriced_per_mille
        {
            return Some(Fault::Underpriced);
        }
        if rng.random_range(0..1000) >= self.per_mille {
            return None;
        }
        let kind: i32 = rng.random_range(0..8);
        Some(self.generic(kind, &mut rng))
    }

    /// Generic fault number `kind` (0..8); a delay draws its length from `rng`.
    fn generic(&self, kind: i32, rng: &mut ChaCha8Rng) -> Fault {
        match kind {
            0 => Fault::DropBefore,
            1 => Fault::DropAfter,
            2 => Fault::Delay(Duration::from_millis(
                rng.random_range(50..=self.max_delay.as_millis().max(50) as u64),
            )),
            3 => Fault::RateLimited,
            4 => Fault::ServerError(500),
            5 => Fault::ServerError(502),
            6 => Fault::ServerError(503),
            _ => Fault::LostAnswer,
        }
    }
}

/// The proxy's switches and counters (clones share them).
#[derive(Clone)]
pub struct Proxy {
    upstream: String,
    plan: Arc<Mutex<FaultPlan>>,
    /// Every request answers 503 while set (an outage).
    pub down: Arc<AtomicBool>,
    /// Every `eth_call` waits, unanswered, while set (a provider that hangs on views).
    pub hold_calls: Arc<AtomicBool>,
    empty_left: Arc<AtomicU64>,
    underpriced_left: Arc<AtomicU64>,
    requests: Arc<AtomicU64>,
    counts: Arc<Mutex<BTreeMap<&'static str, u64>>>,
    client: reqwest::Client,
    /// Rewrites every non-empty `eth_getLogs` result while set (a lying provider).
    lie: Arc<Mutex<Option<Lie>>>,
    lies_told: Arc<AtomicU64>,
}

/// A lying provider's rewrite of an `eth_getLogs` result (the JSON array of logs).
pub type Lie = fn(&mut Value);

impl Proxy {
    /// Replace the plan (e.g. turn faults on once a test's setup is done).
    pub fn set_plan(&self, plan: FaultPlan) {
        self.empty_left.store(plan.empty_pages, Ordering::Relaxed);
        self.underpriced_left
            .store(plan.underpriced_first, Ordering::Relaxed);
        *self.plan.lock().unwrap() = plan;
    }

    /// Faults injected so far, by kind.
    pub fn counts(&self) -> BTreeMap<&'static str, u64> {
        self.counts.lock().unwrap().clone()
    }

    /// Faults of one kind injected so far.
    pub fn count(&self, fault: Fault) -> u64 {
        self.counts().get(fault.kind()).copied().unwrap_or(0)
    }

    /// All faults injected so far.
    pub fn total_faults(&self) -> u64 {
        self.counts().values().sum()
    }

    /// Lie about every non-empty `eth_getLogs` page from now on (`None`: tell the truth).
    pub fn set_lie(&self, lie: Option<Lie>) {
        *self.lie.lock().unwrap() = lie;
    }

    /// `eth_getLogs` pages rewritten so far.
    pub fn lies_told(&self) -> u64 {
        self.lies_told.load(Ordering::Relaxed)
    }

    /// Requests received so far.
    pub fn requests(&self) -> u64 {
        self.requests.load(Ordering::Relaxed)
    }

    fn note(&self, fault: Fault) {
        *self.counts.lock().unwrap().entry(fault.kind()).or_default() += 1;
    }

    /// Answer one request body: `None` closes the connection with no answer.
    async fn handle(&self, body: &[u8]) -> Option<Answer> {
        if self.down.load(Ordering::Relaxed) {
            return Some(Answer::status(503));
        }
        let k = self.requests.fetch_add(1, Ordering::Relaxed);
        let request: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
        let method = request["method"].as_str().unwrap_or("").to_owned();
        while method == "eth_call" && self.hold_calls.load(Ordering::Relaxed) {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let plan = self.plan.lock().unwrap().clone();
        if method == "eth_getLogs" && log_range(&request) > plan.max_range {
            self.note(Fault::RangeRefused);
            return Some(Answer::rpc_error(
                &request,
                -32602,
                &format!("query exceeds max block range {}", plan.max_range),
            ));
        }
        let first_sends = method == "eth_sendRawTransaction"
            && self
                .underpriced_left
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
                .is_ok();
        let fault = if first_sends {
            Some(Fault::Underpriced)
        } else {
            plan.fault_for(k, &method)
        };
        if let Some(fault) = fault {
            self.note(fault);
        }
        match fault {
            Some(Fault::DropBefore) => return None,
            Some(Fault::RateLimited) => {
                let mut answer = Answer::status(429);
                answer.headers.push("Retry-After: 1".into());
                return Some(answer);
            }
            Some(Fault::ServerError(code)) => return Some(Answer::status(code)),
            Some(Fault::Underpriced) => {
                return Some(Answer::rpc_error(
                    &request,
                    -32000,
                    "replacement transaction underpriced",
                ));
            }
            Some(Fault::Delay(d)) => tokio::time::sleep(d).await,
            _ => {}
        }
        let Ok(upstream) = self
            .client
            .post(&self.upstream)
            .header("content-type", "application/json")
            .body(body.to_vec())
            .send()
            .await
        else {
            return Some(Answer::status(502));
        };
        let status = upstream.status().as_u16();
        let Ok(mut bytes) = upstream.bytes().await.map(|b| b.to_vec()) else {
            return Some(Answer::status(502));
        };
        match fault {
            Some(Fault::DropAfter) => return None,
            Some(Fault::LostAnswer) => return Some(Answer::status(502)),
            _ => {}
        }
        if method == "eth_getLogs" {
            bytes = self.maybe_empty_page(bytes);
            bytes = self.maybe_lie(bytes);
        }
        Some(Answer {
            status,
            headers: Vec::new(),
            body: bytes,
        })
    }

    /// Rewrite a page that holds logs while a lie is set.
    fn maybe_lie(&self, bytes: Vec<u8>) -> Vec<u8> {
        let Some(lie) = *self.lie.lock().unwrap() else {
            return bytes;
        };
        let Ok(mut value) = serde_json::from_slice::<Value>(&bytes) else {
            return bytes;
        };
        if value["result"].as_array().is_none_or(|a| a.is_empty()) {
            return bytes;
        }
        lie(&mut value["result"]);
        self.lies_told.fetch_add(1, Ordering::Relaxed);
        serde_json::to_vec(&value).unwrap()
    }

    /// Serve `[]` instead of a page that holds logs while the empty-page budget lasts.
    fn maybe_empty_page(&self, bytes: Vec<u8>) -> Vec<u8> {
        let Ok(mut value) = serde_json::from_slice::<Value>(&bytes) else {
            return bytes;
        };
        let holds_logs = value["result"].as_array().is_some_and(|a| !a.is_empty());
        if !holds_logs
            || self
                .empty_left
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
                .is_err()
        {
            return bytes;
        }
        self.note(Fault::EmptyPage);
        value["result"] = json!([]);
        serde_json::to_vec(&value).unwrap()
    }
}

/// Blocks spanned by an `eth_getLogs` request (tags such as "latest" count as block 0).
fn log_range(request: &Value) -> u64 {
    let block = |v: &Value| {
        u64::from_str_radix(v.as_str().unwrap_or("0x0").trim_start_matches("0x"), 16).unwrap_or(0)
    };
    let filter = &request["params"][0];
    block(&filter["toBlock"]).saturating_sub(block(&filter["fromBlock"])) + 1
}

/// An HTTP answer.
struct Answer {
    status: u16,
    headers: Vec<String>,
    body: Vec<u8>,
}

impl Answer {
    fn status(status: u16) -> Self {
        Self {
            status,
            headers: Vec::new(),
            body: format!("{{\"error\":\"injected {status}\"}}").into_bytes(),
        }
    }

    fn rpc_error(request: &Value, code: i64, message: &str) -> Self {
        let body = json!({"jsonrpc": "2.0", "id": request["id"],
            "error": {"code": code, "message": message}});
        Self {
            status: 200,
            headers: Vec::new(),
            body: serde_json::to_vec(&body).unwrap(),
        }
    }

    fn to_bytes(&self) -> Vec<u8> {
        let mut head = format!(
            "HTTP/1.1 {} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
            self.status,
            self.body.len()
        );
        for h in &self.headers {
            head.push_str(h);
            head.push_str("\r\n");
        }
        head.push_str("\r\n");
        let mut out = head.into_bytes();
        out.extend_from_slice(&self.body);
        out
    }
}

/// Read one HTTP/1.1 request and return its body (`None` if the client went away).
async fn read_body(sock: &mut TcpStream) -> Option<Vec<u8>> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let header_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let n = sock.read(&mut chunk).await.ok().filter(|&n| n > 0)?;
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..header_end]).to_ascii_lowercase();
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    while buf.len() < header_end + length {
        let n = sock.read(&mut chunk).await.ok().filter(|&n| n > 0)?;
        buf.extend_from_slice(&chunk[..n]);
    }
    Some(buf[header_end..header_end + length].to_vec())
}

async fn serve(mut sock: TcpStream, proxy: Proxy) {
    let Some(body) = read_body(&mut sock).await else {
        return;
    };
    if let Some(answer) = proxy.handle(&body).await {
        let _ = sock.write_all(&answer.to_bytes()).await;
        let _ = sock.shutdown().await;
    }
    // Dropping the socket closes the connection (with no answer for a dropped one).
}

/// Start a proxy to `upstream` with `plan` on a free port; returns its URL and handle.
pub async fn start_faulty_proxy(upstream: &str, plan: FaultPlan) -> (String, Proxy) {
    let proxy = Proxy {
        upstream: upstream.into(),
        empty_left: Arc::new(AtomicU64::new(plan.empty_pages)),
        underpriced_left: Arc::new(AtomicU64::new(plan.underpriced_first)),
        plan: Arc::new(Mutex::new(plan)),
        down: Arc::default(),
        hold_calls: Arc::default(),
        requests: Arc::default(),
        counts: Arc::default(),
        client: reqwest::Client::new(),
        lie: Arc::default(),
        lies_told: Arc::default(),
    };
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind proxy");
    let url = format!("http://{}", listener.local_addr().expect("proxy addr"));
    let accepting = proxy.clone();
    tokio::spawn(async move {
        while let Ok((sock, _)) = listener.accept().await {
            tokio::spawn(serve(sock, accepting.clone()));
        }
    });
    (url, proxy)
}

/// A proxy that only refuses `eth_getLogs` ranges above `max_range` (faults off until
/// [`Proxy::set_plan`]).
pub async fn start_proxy(upstream: &str, max_range: u64) -> (String, Proxy) {
    start_faulty_proxy(upstream, FaultPlan::quiet(max_range)).await
}
