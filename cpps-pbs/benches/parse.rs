//! The PBS list decoders at the sizes that occur, ten times them, and the list cap.
//!
//! What is timed is the client's own path for an answer: [`PbsEnvelope`] decoding
//! `{"data": [...]}` into `Vec<Snapshot>` (`GET /admin/datastore/{store}/snapshots`) and
//! `Vec<TaskListItem>` (`GET /nodes/{node}/tasks`), on answers built from cpps-pbs's fixtures
//! (`snapshots_store1.json`, `tasks.json`; shaped as PBS's `pbs-apidoc.json` says), each item
//! repeated with its own id and time. Sizes: a datastore of 3,000 snapshots and 30,000; a task
//! list of 500 and 5,000; and for both, as many items as fit in the list cap
//! (`DEFAULT_LIST_MAX_RESPONSE_BYTES`, 128 MiB), past which the client refuses the answer
//! unread. Each run copies the body into the response first (a memcpy, included).
//!
//! Thread CPU time, fastest of five samples (three at the cap), sizes in turns; instruction
//! counts (cachegrind) at N and 10·N where valgrind is installed.
//! `cargo bench -p cpps-pbs --bench parse` (part of `cargo xtask bench parsers`).
#![allow(missing_docs)]

use std::time::Duration;

use cpps_http::Envelope;
use cpps_http::test_util::bench::{fastest_in_turns, instructions, print_scaling, warm_up};
use cpps_pbs::types::{Snapshot, TaskListItem};
use cpps_pbs::{DEFAULT_LIST_MAX_RESPONSE_BYTES, PbsEnvelope};
use serde_json::Value;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");

fn items(name: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(format!("{FIXTURES}/{name}")).expect("fixture");
    let v: Value = serde_json::from_str(&text).expect("fixture is JSON");
    v["data"].as_array().expect("a list").clone()
}

/// `{"data": [...]}` of `n` items: the fixture's items in turn, each with its own id and time.
fn answer(items: &[Value], n: usize, vary: fn(&mut Value, usize)) -> Vec<u8> {
    let list: Vec<Value> = (0..n)
        .map(|i| {
            let mut item = items[i % items.len()].clone();
            vary(&mut item, i);
            item
        })
        .collect();
    serde_json::to_vec(&serde_json::json!({ "data": list })).expect("serialises")
}

fn vary_snapshot(item: &mut Value, i: usize) {
    item["backup-id"] = Value::from(format!("{}", 100 + i / 30));
    item["backup-time"] = Value::from(1_795_000_000 + i as i64 * 3_600);
}

fn vary_task(item: &mut Value, i: usize) {
    item["starttime"] = Value::from(1_795_000_000 + i as i64 * 60);
    item["pid"] = Value::from(1_000 + i as i64);
}

fn decode<T: serde::de::DeserializeOwned>(body: &[u8]) -> Option<Vec<T>> {
    let response = cpps_http::Response::from_parts(
        http::Method::GET,
        "https://127.0.0.1:8007/api2/json/x".parse().expect("url"),
        http::StatusCode::OK,
        http::HeaderMap::new(),
        body.to_vec(),
    );
    PbsEnvelope.decode(response).ok()
}

struct List {
    name: &'static str,
    real: usize,
    fixture: &'static str,
    vary: fn(&mut Value, usize),
    decode: fn(&[u8]) -> Option<usize>,
}

const LISTS: [List; 2] = [
    List {
        name: "snapshots",
        real: 3_000,
        fixture: "snapshots_store1.json",
        vary: vary_snapshot,
        decode: |b| decode::<Snapshot>(b).map(|v| v.len()),
    },
    List {
        name: "tasks",
        real: 500,
        fixture: "tasks.json",
        vary: vary_task,
        decode: |b| decode::<TaskListItem>(b).map(|v| v.len()),
    },
];

/// The most items that stay within the list cap.
fn at_cap(items: &[Value], vary: fn(&mut Value, usize)) -> usize {
    let per_item = answer(items, 1_000, vary).len() / 1_000;
    let mut n = DEFAULT_LIST_MAX_RESPONSE_BYTES / per_item.max(1);
    while n > 1 && answer(items, n, vary).len() > DEFAULT_LIST_MAX_RESPONSE_BYTES {
        n -= n / 50 + 1;
    }
    n
}

fn main() {
    // `CPPS_PBS_BENCH_ONLY=NAME:N` decodes that answer once (`gen-NAME:N` only builds it).
    if let Ok(only) = std::env::var("CPPS_PBS_BENCH_ONLY") {
        let (which, n) = only.split_once(':').unwrap_or((only.as_str(), "1"));
        let n: usize = n.parse().unwrap_or(1);
        for list in &LISTS {
            let body = || answer(&items(list.fixture), n, list.vary);
            if which == list.name {
                assert_eq!((list.decode)(&body()), Some(n));
            } else if which.strip_prefix("gen-") == Some(list.name) {
                drop(std::hint::black_box(body()));
            }
        }
        return;
    }
    for list in &LISTS {
        let items = items(list.fixture);
        let cap = at_cap(&items, list.vary);
        let sizes = [list.real, list.real * 10, cap];
        let bodies: Vec<Vec<u8>> = sizes
            .iter()
            .map(|&n| answer(&items, n, list.vary))
            .collect();
        for (n, body) in sizes.iter().zip(&bodies) {
            assert_eq!((list.decode)(body), Some(*n), "{} decodes", list.name);
        }
        warm_up(Duration::from_millis(300), &bodies[..2], |b| {
            std::hint::black_box((list.decode)(b));
        });
        let mut timed = fastest_in_turns(5, &bodies[..2], |b| {
            std::hint::black_box((list.decode)(b));
        });
        timed.extend(fastest_in_turns(3, &bodies[2..], |b| {
            std::hint::black_box((list.decode)(b));
        }));
        for ((n, body), sample) in sizes.iter().zip(&bodies).zip(&timed) {
            let cpu = sample.cpu.map_or("-".to_owned(), |c| {
                format!("{:.3} ms", c.as_secs_f64() * 1e3)
            });
            println!(
                "{} {n} items ({} bytes): wall {:.3} ms, cpu {cpu}",
                list.name,
                body.len(),
                sample.wall.as_secs_f64() * 1e3
            );
        }
        print_scaling(list.name, "items", &sizes[..2], &timed[..2], 11.0);
        let count = |n: usize| {
            instructions("CPPS_PBS_BENCH_ONLY", &format!("{}:{n}", list.name))
                .zip(instructions(
                    "CPPS_PBS_BENCH_ONLY",
                    &format!("gen-{}:{n}", list.name),
                ))
                .map(|(p, g)| p.saturating_sub(g))
        };
        match (count(sizes[0]), count(sizes[1])) {
            (Some(a), Some(b)) => println!(
                "{} {} -> {} items: {a} and {b} instructions ({:.2}x)",
                list.name,
                sizes[0],
                sizes[1],
                b as f64 / a.max(1) as f64
            ),
            _ => println!("{} instructions: valgrind is not installed", list.name),
        }
    }
}
