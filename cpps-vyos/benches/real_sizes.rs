//! The VyOS readers at the sizes that occur, at ten times them, and at the cap their input has.
//!
//! * `config.boot` (`ConfigTree::parse_boot`), the `showConfig` text (`parse_shown`, the
//!   tree's `to_show_config_string`) and `set` commands (`parse_set`): a real router
//!   configuration from VyOS's own test suite (`tests/fixtures/vyos-configs/`
//!   `dialup-router-medium-vpn`, 718 lines of `config.boot`, 333 `set` lines), ten copies of
//!   it (each top-level node renamed `NAME-k`), and as many copies as fit in 8 MiB: the
//!   client's answer cap (`cpps_http::DEFAULT_MAX_RESPONSE_BYTES`) that bounds what the router
//!   can send; a file the crate reads is refused over the same cap
//!   (`cpps_vyos::backup::MAX_FILE_BYTES`).
//! * One leaf of many values (`firewall group address-group NAME address`), in `config.boot`
//!   and as `set` commands: 100 addresses (a large real group), 1,000, and as many as fit in
//!   8 MiB (about 250,000): a leaf of 60,000 values once took 6.6 s in both readers, the
//!   repeats being looked for one by one.
//! * `show interfaces wireguard NAME summary` (`status::parse_wireguard`): 20 peers, 200, and
//!   the 8 MiB cap.
//! * `show bgp summary` (`status::parse_bgp_summary`): the FRR 10 fixture's six neighbours,
//!   ten times as many rows, and the cap.
//!
//! Thread CPU time, fastest of five samples, sizes in turns; instruction counts (cachegrind)
//! at the real size and ten times it where valgrind is installed.
//! `cargo bench -p cpps-vyos --bench real_sizes` (part of `cargo xtask bench parsers`).
#![allow(missing_docs)]

use std::time::Duration;

use cpps_http::test_util::bench::{fastest_in_turns, instructions, print_scaling, warm_up};
use cpps_vyos::ConfigTree;
use cpps_vyos::status::{parse_bgp_summary, parse_wireguard};

const CAP: usize = 8 * 1024 * 1024;
const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");

fn fixture(rel: &str) -> String {
    std::fs::read_to_string(format!("{FIXTURES}/{rel}")).expect("fixture")
}

/// `copies` copies of a `config.boot` body, each top-level node (at `indent`: none in
/// `config.boot`, one space in `showConfig`'s text) renamed `NAME-k`, then the footer (the
/// `/* … */` lines at the end) once.
fn boot_copies(text: &str, copies: usize, indent: &str) -> String {
    // The footer is the run of `/* … */` lines at the very end (a comment line may open a
    // node elsewhere too).
    let mut split = text.len();
    for line in text.lines().rev() {
        if !line.starts_with("/*") && !line.trim().is_empty() {
            break;
        }
        split = text[..split]
            .trim_end_matches('\n')
            .rfind('\n')
            .map_or(0, |i| i + 1);
    }
    let (body, footer) = text.split_at(split);
    let mut out = String::with_capacity(body.len() * copies + footer.len());
    for k in 0..copies {
        for line in body.lines() {
            let top = line
                .strip_prefix(indent)
                .filter(|l| !l.starts_with(' '))
                .and_then(|l| l.strip_suffix(" {"));
            match top {
                Some(name) => out.push_str(&format!("{indent}{name}-{k} {{\n")),
                None => {
                    out.push_str(line);
                    out.push('\n');
                }
            }
        }
    }
    out.push_str(footer);
    out
}

/// `copies` copies of `set` commands, the first path word renamed `WORD-k`.
fn set_copies(text: &str, copies: usize) -> String {
    let mut out = String::with_capacity(text.len() * copies);
    for k in 0..copies {
        for line in text.lines() {
            match line.strip_prefix("set ").and_then(|l| l.split_once(' ')) {
                Some((first, rest)) => out.push_str(&format!("set {first}-{k} {rest}\n")),
                None => {
                    out.push_str(line);
                    out.push('\n');
                }
            }
        }
    }
    out
}

/// The address of value `i` of a large group.
fn address(i: usize) -> String {
    format!("10.{}.{}.{}", i >> 16, (i >> 8) & 255, i & 255)
}

/// One `config.boot` leaf of `n` values.
fn group_boot(n: usize) -> String {
    let mut s = String::from("firewall {\n    group {\n        address-group big {\n");
    for i in 0..n {
        s.push_str(&format!("            address {}\n", address(i)));
    }
    s.push_str("        }\n    }\n}\n");
    s
}

/// The same leaf as `set` commands.
fn group_set(n: usize) -> String {
    (0..n)
        .map(|i| {
            format!(
                "set firewall group address-group big address '{}'\n",
                address(i)
            )
        })
        .collect()
}

/// A `wg0` summary with `peers` peers, as vyos-1x `python/vyos/ifconfig/wireguard.py`
/// `show_interface` prints them (cpps-vyos's status tests).
fn wireguard(peers: usize) -> String {
    let mut s = String::from(
        "interface: wg0\n  address: 192.168.10.1/24\n  public key: cHVibGljLWtleS1vZi13ZzAtMDAwMDAwMDAwMDAwMDA=\n  private key: (hidden)\n  listening port: 7777\n\n",
    );
    for i in 0..peers {
        s.push_str(&format!(
            "  peer: peer-{i}\n    public key: ALGWvMJCKpHF2tVH3hEIHqUe9iFfAmZATUUok/W{:05}=\n    latest handshake: 0:00:40\n    status: active\n    allowed ips: 10.{}.{}.{}/32\n    transfer: 1 MB received, 2 MB sent\n    persistent keepalive: every 20 seconds\n\n",
            i % 100_000,
            i >> 16,
            (i >> 8) & 255,
            i & 255
        ));
    }
    s
}

/// The FRR 10 summary fixture with each neighbour row repeated `copies` times.
fn bgp(text: &str, copies: usize) -> String {
    let mut out = String::new();
    let mut in_table = false;
    for line in text.lines() {
        if line.starts_with("Neighbor") {
            in_table = true;
        } else if line.trim().is_empty() || line.starts_with("Total") {
            in_table = false;
        } else if in_table {
            for _ in 1..copies {
                out.push_str(line);
                out.push('\n');
            }
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The most `copies` of `make` that stay within [`CAP`] (bytes grow linearly with copies,
/// after a fixed part: a header, a footer).
fn at_cap(make: &dyn Fn(usize) -> String) -> usize {
    let (one, two) = (make(1).len(), make(2).len());
    let per_copy = two.saturating_sub(one).max(1);
    let fixed = one.saturating_sub(per_copy);
    let mut n = CAP.saturating_sub(fixed) / per_copy;
    while n > 1 && make(n).len() > CAP {
        n -= n / 50 + 1;
    }
    n
}

type Parse = fn(&str) -> bool;

struct Reader {
    name: &'static str,
    unit: &'static str,
    real: usize,
    make: Box<dyn Fn(usize) -> String>,
    parse: Parse,
}

fn readers() -> Vec<Reader> {
    let boot = fixture("vyos-configs/dialup-router-medium-vpn.config.boot");
    let set = fixture("vyos-configs/dialup-router-medium-vpn.commands");
    let shown = ConfigTree::parse_boot(&boot)
        .expect("the fixture parses")
        .to_show_config_string();
    let summary = fixture("show/bgp-summary-frr10.txt");
    vec![
        Reader {
            name: "config.boot",
            unit: "copies",
            real: 1,
            make: Box::new(move |n| boot_copies(&boot, n, "")),
            parse: |s| ConfigTree::parse_boot(s).is_ok(),
        },
        Reader {
            name: "showConfig",
            unit: "copies",
            real: 1,
            make: Box::new(move |n| boot_copies(&shown, n, " ")),
            parse: |s| {
                ConfigTree::parse_shown(s)
                    .map_err(|e| eprintln!("showConfig: {e}"))
                    .is_ok()
            },
        },
        Reader {
            name: "set",
            unit: "copies",
            real: 1,
            make: Box::new(move |n| set_copies(&set, n)),
            parse: |s| ConfigTree::parse_set(s).is_ok(),
        },
        Reader {
            name: "group-boot",
            unit: "values",
            real: 100,
            make: Box::new(group_boot),
            parse: |s| ConfigTree::parse_boot(s).is_ok(),
        },
        Reader {
            name: "group-set",
            unit: "values",
            real: 100,
            make: Box::new(group_set),
            parse: |s| ConfigTree::parse_set(s).is_ok(),
        },
        Reader {
            name: "wireguard",
            unit: "peers",
            real: 20,
            make: Box::new(wireguard),
            parse: |s| parse_wireguard(s).len() == 1,
        },
        Reader {
            name: "bgp-summary",
            unit: "copies",
            real: 1,
            make: Box::new(move |n| bgp(&summary, n)),
            parse: |s| parse_bgp_summary(s).is_some(),
        },
    ]
}

fn main() {
    // `CPPS_VYOS_REAL_ONLY=NAME:N` parses that input once (`gen-NAME:N` only builds it): for
    // the instruction counts.
    if let Ok(only) = std::env::var("CPPS_VYOS_REAL_ONLY") {
        let (which, n) = only.split_once(':').unwrap_or((only.as_str(), "1"));
        let n: usize = n.parse().unwrap_or(1);
        let gen_only = which.strip_prefix("gen-");
        for r in readers() {
            if gen_only == Some(r.name) {
                drop(std::hint::black_box((r.make)(n)));
            } else if which == r.name {
                assert!((r.parse)(&(r.make)(n)));
            }
        }
        return;
    }
    for r in readers() {
        let cap = at_cap(&*r.make);
        let sizes = [r.real, r.real * 10, cap];
        let inputs: Vec<String> = sizes.iter().map(|&n| (r.make)(n)).collect();
        assert!(
            inputs.iter().all(|i| (r.parse)(i)),
            "{} reads its inputs",
            r.name
        );
        warm_up(Duration::from_millis(300), &inputs, |i| {
            std::hint::black_box((r.parse)(i));
        });
        let timed = fastest_in_turns(5, &inputs, |i| {
            std::hint::black_box((r.parse)(i));
        });
        for ((n, input), sample) in sizes.iter().zip(&inputs).zip(&timed) {
            let cpu = sample.cpu.map_or("-".to_owned(), |c| {
                format!("{:.3} ms", c.as_secs_f64() * 1e3)
            });
            println!(
                "{} {n} {} ({} lines, {} bytes): wall {:.3} ms, cpu {cpu}",
                r.name,
                r.unit,
                input.lines().count(),
                input.len(),
                sample.wall.as_secs_f64() * 1e3
            );
        }
        print_scaling(r.name, r.unit, &sizes[..2], &timed[..2], 11.0);
        let count = |n: usize| {
            instructions("CPPS_VYOS_REAL_ONLY", &format!("{}:{n}", r.name))
                .zip(instructions(
                    "CPPS_VYOS_REAL_ONLY",
                    &format!("gen-{}:{n}", r.name),
                ))
                .map(|(p, g)| p.saturating_sub(g))
        };
        match (count(sizes[0]), count(sizes[1])) {
            (Some(a), Some(b)) => println!(
                "{} {} -> {} {}: {a} and {b} instructions ({:.2}x)",
                r.name,
                sizes[0],
                sizes[1],
                r.unit,
                b as f64 / a.max(1) as f64
            ),
            _ => println!("{} instructions: valgrind is not installed", r.name),
        }
    }
}
