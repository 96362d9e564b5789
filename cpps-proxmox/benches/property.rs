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
//! thread CPU time, and the ratio of 10 → 100 keys with one `PASS`/`MISS` line: ten times the
//! input at most twelve times the CPU time. The keys come in no order, so `Volume` sorts them.
//! A benchmark, not a test: it asserts nothing.

use std::hint::black_box;
use std::time::Duration;

use cpps_http::test_util::bench::{fastest_in_turns, print_scaling, warm_up};
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

fn main() {
    // Each part is 28 bytes: as many as fit under the cap.
    let at_cap = (MAX_PROPERTY_STRING - text(0).len()) / 28;
    let sizes = [10, 100, at_cap];
    let inputs: Vec<String> = sizes.iter().map(|&n| text(n)).collect();
    let parsers = [
        ("PropertyString::parse", parse_generic as fn(&str)),
        ("Volume::from_str", parse_typed),
    ];
    for (_, parse) in parsers {
        warm_up(Duration::from_millis(500), &inputs, |input| parse(input));
    }
    for (name, parse) in parsers {
        let timed = fastest_in_turns(9, &inputs, |input| parse(input));
        for ((n, sample), input) in sizes.iter().zip(&timed).zip(&inputs) {
            let cpu = sample.cpu.map_or("-".to_owned(), |c| format!("{c:?}"));
            println!(
                "{name} {n} keys ({} bytes): wall {:?}, cpu {cpu}",
                input.len(),
                sample.wall
            );
        }
        print_scaling(name, "keys", &sizes[..2], &timed[..2], 12.0);
    }
}
