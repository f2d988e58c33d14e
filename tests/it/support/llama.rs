//! llama.cpp's `llama-server` (built by `make setup` into tools/llama-server) serving the shipped
//! gemma-3-270m GGUF, for the tests that need a real OpenAI-compatible model server
//! (`tests/it/llama_server.rs`, `tests/it/doctor.rs`).

use std::{
    path::PathBuf,
    process::{Child, Command, Stdio},
    time::Duration,
};

use veritas::devnet::repo_root;

/// `VERITAS_LLAMA_SERVER`, else tools/llama-server/bin/llama-server.
pub fn llama_server() -> Option<PathBuf> {
    let path = std::env::var_os("VERITAS_LLAMA_SERVER")
        .map(PathBuf::from)
        .or_else(|| repo_root().map(|r| r.join("tools/llama-server/bin/llama-server")))?;
    path.is_file().then_some(path)
}

/// The server process, killed when the test ends however it ends.
pub struct Server {
    child: Child,
    log: PathBuf,
    pub url: String,
}

impl Server {
    /// Start `binary` on a port of its own choosing (`--port 0`: no port picked here and freed
    /// for another process to take first) with the embedded juror's model; read the address it
    /// logs and wait until the model has loaded.
    pub async fn start(binary: &PathBuf, dir: &std::path::Path) -> Self {
        let model = repo_root()
            .unwrap()
            .join("tools/models/gemma-3-270m-q4_k_m.gguf");
        assert!(
            model.is_file(),
            "{} missing: run make setup",
            model.display()
        );
        let log = dir.join("llama-server.log");
        // Three slots, one per committee seat; 4096 context tokens each. `--metrics`: the
        // test reads its decode counter to tell slow progress from none (`Server::decodes`).
        let child = Command::new(binary)
            .args(["-m", model.to_str().unwrap(), "--host", "127.0.0.1"])
            .args(["--port", "0", "-t", "2", "-np", "3", "-c", "12288"])
            .arg("--metrics")
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        let mut server = Self {
            child,
            log,
            url: String::new(),
        };
        let client = reqwest::Client::new();
        let log = server.log.clone();
        super::wait::until(
            Duration::from_secs(120),
            || {
                let text = std::fs::read_to_string(&log).unwrap_or_default();
                format!("llama-server not ready\n{text}")
            },
            async || {
                if server.url.is_empty() {
                    // "srv  llama_server: listening on http://127.0.0.1:46339", once the line is
                    // whole (it ends with its newline).
                    if let Some((url, _)) = server
                        .log_text()
                        .split("listening on ")
                        .nth(1)
                        .and_then(|rest| rest.split_once('\n'))
                    {
                        server.url = url.trim().to_owned();
                    }
                }
                if let Some(status) = server.child.try_wait().unwrap() {
                    panic!("llama-server exited with {status}\n{}", server.log_text());
                }
                // 503 while the model loads, 200 once it serves.
                let ok = !server.url.is_empty()
                    && client
                        .get(format!("{}/health", server.url))
                        .send()
                        .await
                        .is_ok_and(|r| r.status().is_success());
                ok.then_some(())
            },
        )
        .await;
        server
    }

    /// How many decode steps the server has run (`llamacpp:n_decode_total`, which moves with
    /// every batch of prompt or generated tokens, unlike the per-request token counters);
    /// `None` when the page cannot be read.
    pub async fn decodes(&self) -> Option<u64> {
        let page = reqwest::get(format!("{}/metrics", self.url))
            .await
            .ok()?
            .text()
            .await
            .ok()?;
        page.lines().find_map(|line| {
            let value = line.strip_prefix("llamacpp:n_decode_total ")?;
            value.trim().parse::<f64>().ok().map(|v| v as u64)
        })
    }

    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

/// The last 80 lines of a log, for failure messages.
pub fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(80)..].join("\n")
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
