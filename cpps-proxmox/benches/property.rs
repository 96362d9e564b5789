//! `cargo bench -p cpps-proxmox --bench property` (part of `cargo xtask bench parsers`): parse
//! time of PVE property strings at the sizes that occur and at the cap.
//!
//! ```text
//! cargo bench -p cpps-proxmox --bench property
//! ```
//!
//! A real disk has about ten keys; the bench parses a volume with 10 keys, ten times that, and
//! as many as fit in [`MAX_PROPERTY_STRING`] (a longer string is refused unread), through the
//! generic parser and `Volume`. For each size it prints the fastest of nine samples in wall and
//! thread CPU time, the ratio of 10 → 100 keys with one `PASS`/`MISS` line (ten times the input
//! at most eleven times the CPU time), and the same ratio in instructions of one parse where
//! valgrind is installed. The keys come in no order, so `Volume` sorts them. A benchmark, not a
//! test: it asserts nothing.

use std::hint::black_box;
use std::time::Duration;

use cpps_http::test_util::bench::{fastest_in_turns, instructions, print_scaling, warm_up};
use cpps_proxmox::types::{MAX_PROPERTY_STRING, PropertyString, Volume};

/// A volume with `keys` other keys, each part the same length, in no order (`i × 7 919 mod
/// keys`).
fn text(keys: usize) -> String {
    use std::fmt::Write;
    let mut out = String::from("local-lvm:vm-100-disk-0");
    for i in 0..keys {
        let k = i * 7_919 % keys;
        write!(out, ",key{k:08}=value{k:08}").expect("writing to a String");
    }
    out
}

fn parse_generic(text: &str) {
    black_box(PropertyString::parse(black_box(text)).expect("the bench text parses"));
}

fn parse_typed(text: &str) {
    black_box(
        black_box(text)
            .parse::<Volume>()
            .expect("the bench text parses"),
    );
}

/// A parser timed, by name.
type Parser = (&'static str, fn(&str));

/// The parsers timed.
const PARSERS: [Parser; 2] = [
    ("PropertyString::parse", parse_generic),
    ("Volume::from_str", parse_typed),
];

/// Under `CPPS_PROPERTY_ONLY=NAME:N`, parses the text of `N` keys once with the parser `NAME`
/// (`gen:N` only builds the text), for the instruction counts. Whether it did.
fn run_only() -> bool {
    let Ok(only) = std::env::var("CPPS_PROPERTY_ONLY") else {
        return false;
    };
    let (which, n) = only.rsplit_once(':').unwrap_or((only.as_str(), "1"));
    let input = text(n.parse().unwrap_or(1));
    for (name, parse) in PARSERS {
        if name == which {
            parse(&input);
        }
    }
    true
}

/// Instructions of one parse of `keys` keys by `name`, the building of its text taken off.
fn parse_instructions(name: &str, keys: usize) -> Option<u64> {
    let with_parse = instructions("CPPS_PROPERTY_ONLY", &format!("{name}:{keys}"))?;
    let text_only = instructions("CPPS_PROPERTY_ONLY", &format!("gen:{keys}"))?;
    Some(with_parse.saturating_sub(text_only))
}

fn main() {
    if run_only() {
        return;
    }
    // Each part is 28 bytes: as many as fit under the cap.
    let at_cap = (MAX_PROPERTY_STRING - text(0).len()) / 28;
    let sizes = [10, 100, at_cap];
    let inputs: Vec<String> = sizes.iter().map(|&n| text(n)).collect();
    for (_, parse) in PARSERS {
        warm_up(Duration::from_millis(500), &inputs, |input| parse(input));
    }
    for (name, parse) in PARSERS {
        let timed = fastest_in_turns(9, &inputs, |input| parse(input));
        for ((n, sample), input) in sizes.iter().zip(&timed).zip(&inputs) {
            let cpu = sample.cpu.map_or("-".to_owned(), |c| format!("{c:?}"));
            println!(
                "{name} {n} keys ({} bytes): wall {:?}, cpu {cpu}",
                input.len(),
                sample.wall
            );
        }
        print_scaling(name, "keys", &sizes[..2], &timed[..2], 11.0);
        match (
            parse_instructions(name, sizes[0]),
            parse_instructions(name, sizes[1]),
        ) {
            (Some(a), Some(b)) => println!(
                "{name} {} -> {} keys: {a} and {b} instructions ({:.2}x)",
                sizes[0],
                sizes[1],
                b as f64 / a.max(1) as f64
            ),
            _ => println!("{name} instructions: valgrind is not installed"),
        }
    }
}
