//! Setup shared by the examples' integration tests: a binary's output and its expected lines,
//! paths in the repository, free ports on 127.0.0.1, child processes stopped when a test ends,
//! and scraping a running `exporter`.

#![allow(dead_code, unreachable_pub)]

use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::{Duration, Instant};

use cpps_http::{HttpClient, Request, RetryPolicy};

/// The standard output of a binary's run, after checking that it exited with `code` (the
/// failure shows both outputs).
#[track_caller]
pub fn stdout_of_exit(out: &std::process::Output, code: i32) -> String {
    outputs_of_exit(out, code).0
}

/// The standard error of a binary's run, after checking that it exited with `code` (the
/// failure shows both outputs).
#[track_caller]
pub fn stderr_of_exit(out: &std::process::Output, code: i32) -> String {
    outputs_of_exit(out, code).1
}

/// The standard error of a binary's run, after checking that it exited with `code` and that
/// the standard error contains `says`.
#[track_caller]
pub fn stderr_of_exit_saying(out: &std::process::Output, code: i32, says: &str) -> String {
    let stderr = stderr_of_exit(out, code);
    assert!(stderr.contains(says), "expected `{says}` in: {stderr}");
    stderr
}

/// Standard output and standard error of a run that exited with `code`.
#[track_caller]
fn outputs_of_exit(out: &std::process::Output, code: i32) -> (String, String) {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(code), "{stdout}\n{stderr}");
    (stdout, stderr)
}

/// The `--help` of the binary `exe`, after checking that it exits 0 and documents the bound on
/// the whole run: `--timeout <SECONDS>`, `[default: 30]`.
#[track_caller]
pub fn help_documenting_timeout(exe: &str) -> String {
    let out = std::process::Command::new(exe)
        .arg("--help")
        .output()
        .expect("--help runs");
    let help = stdout_of_exit(&out, 0);
    for needle in ["--timeout <SECONDS>", "[default: 30]"] {
        assert!(help.contains(needle), "--help lacks `{needle}`:\n{help}");
    }
    help
}

/// Fails unless each of `expected` is a whole line of `text`; the failure names every missing
/// line and shows the text.
#[track_caller]
pub fn assert_has_lines(text: &str, expected: &[&str]) {
    let missing: Vec<&str> = expected
        .iter()
        .copied()
        .filter(|e| !text.lines().any(|l| l == *e))
        .collect();
    assert!(missing.is_empty(), "missing lines {missing:#?} in:\n{text}");
}

/// A path in the repository.
pub fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel)
}

/// The JSON file at `rel` in the repository (a fixture of another crate's tests); a missing or
/// malformed file fails the test naming it.
pub fn json_file(rel: &str) -> serde_json::Value {
    let file = repo(rel);
    let text = std::fs::read_to_string(&file)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()))
}

/// A port on 127.0.0.1 that nothing listens on (it was free a moment ago).
pub fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// A child process killed (and reaped) when the test ends, however it ends.
#[derive(Debug)]
pub struct Running(pub Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// One answer of the exporter's `/metrics`.
#[derive(Debug)]
pub struct Scraped {
    /// The `Content-Type` it was served with.
    pub content_type: String,
    /// The exposition.
    pub text: String,
    /// How long after the first try it answered 200.
    pub after: Duration,
}

/// Scrapes `http://127.0.0.1:{port}/metrics` (with `accept` as the `Accept` header, when
/// given) until it answers 200, at most `limit`; `None` when it never did. Until the first
/// observation ends the exporter answers 503, which is the only other answer accepted.
pub async fn scrape(port: u16, accept: Option<&str>, limit: Duration) -> Option<Scraped> {
    let client = HttpClient::builder(format!("http://127.0.0.1:{port}/").parse().unwrap())
        .retry(RetryPolicy::none())
        .build()
        .unwrap();
    let started = Instant::now();
    loop {
        let mut request = Request::get("metrics");
        if let Some(accept) = accept {
            request = request.try_header("accept", accept).unwrap();
        }
        if let Ok(r) = client.execute(request).await {
            if r.status().as_u16() == 200 {
                let content_type = r
                    .headers()
                    .get("content-type")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("")
                    .to_owned();
                return Some(Scraped {
                    content_type,
                    text: r.text(),
                    after: started.elapsed(),
                });
            }
            assert_eq!(r.status().as_u16(), 503, "{}", r.text());
        }
        if started.elapsed() > limit {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
