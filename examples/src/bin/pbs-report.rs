//! `pbs-report`: per datastore and per guest, the newest backup's age and verification, RPO
//! breaches, cross-site sync, and failed or overdue prune/sync/verify/GC jobs.
//!
//! ```console
//! PBS_REPOSITORY='report@pbs!ro@pbs-a.example:store1' PBS_PASSWORD=<token secret> \
//! PBS_FINGERPRINT=64:d3:… cargo run -p cpps-examples --bin pbs-report -- --rpo 26h \
//!     --site site-a --remote-site pbs-b=site-b
//! ```
//!
//! Configured as `proxmox-backup-client` is: `PBS_REPOSITORY`
//! (`[[user@realm!token]@]host[:port]:datastore`, port 8007 by default), `PBS_PASSWORD` (the
//! password, or the token secret when the repository names a token) and `PBS_FINGERPRINT`
//! (the server certificate's SHA-256 fingerprint; without it the system's trust store is
//! used). `CPPS_PBS_URL` replaces the API URL derived from the repository. Read-only unless
//! `--fix --apply`: `--fix` prints the plan of what would fix the report (run failed or overdue
//! sync/verify/prune jobs again, verify the newest finished snapshot of guests never verified)
//! and changes nothing; with `--apply` it runs the plan, each task waited on to its end.
//!
//! With `--chain` it also judges each guest's backup chain end to end, one line per guest
//! ("backed up here at T, verified (snapshot of T'), copied to SITE at T''"): the PVE cluster
//! named by `PROXMOX_VE_ENDPOINT` (and `PROXMOX_VE_API_TOKEN` and the TLS variables, as
//! `inventory` reads them) gives the guests, its PBS storages on the datastores this report
//! reads (`GET /storage`; a storage whose `server`, `port` or `fingerprint` shows another
//! server than the repository's and `PBS_FINGERPRINT` is left out, named on stderr, and one
//! whose host differs with no fingerprint on both sides makes its guests "cannot tell"), the
//! vzdump jobs (`GET /cluster/backup`) and their tasks
//! (`GET /nodes/{node}/tasks?typefilter=vzdump`, whole only with `Sys.Audit` on the node, read
//! from `GET /access/permissions`); this PBS gives the newest finished snapshots and their
//! verification; `--copy REMOTE:STORE[:NAMESPACE]` names where the other site keeps
//! the copies, read through this PBS's remote scan. A group there is the copy only when the
//! auth-id the sync writes as owns it: the remote's `auth-id` for a push job of this PBS to
//! that remote and store, or `--copy-owner` (the other site's pull job `owner`); another's
//! group of the same id is that site's own backup. A part that could not be read, or a list
//! the server filters by permission, makes that guest "cannot tell", never ok.
//!
//! Every run ends within `--timeout` seconds (default 30): the client's deadline is set to it,
//! and what was read by then is reported. Each part that could not be read (a job list the
//! token may not see, an endpoint the server's release lacks, one datastore) is printed with
//! its error beside the rest; the report is then partial. So is a datastore whose namespace
//! list PBS may have trimmed to what the token may see (its rights on the datastore do not
//! reach every namespace): the line "namespaces PBS may have left out of the list" says why.
//! With `--all-datastores`, so is a datastore list PBS may have trimmed: "datastores PBS may
//! have left out of the list". A token with the `Audit` role on `/` sees every datastore;
//! the sync jobs and remotes also need `RemoteAudit` on `/remote` (proxmox-backup
//! `src/api2/config/sync.rs` `check_sync_job_read_access` filters the jobs by
//! `Remote.Audit`, which the `Audit` role lacks: pbs-api-types `ROLE_AUDIT`), else the copies
//! are "cannot tell".
//!
//! Exit status: 0 when all is well; 1 when a guest's newest backup is older than the RPO or
//! failed verification (or has an unknown verification state), a job's last run failed, a
//! datastore could not be read, a guest's chain (with `--chain`) is not ok or its guest list
//! may be partial, or the report is
//! partial; 2 when the report could not be made
//! (configuration, or nothing answered within the timeout).

use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use cpps_examples::Format;
use cpps_pbs::chain::{self, ChainInput, GuestChain, PbsAddress, PbsTarget, Verdict};
use cpps_pbs::checks::{Sites, parse_duration};
use cpps_pbs::report::{self, ReportOptions};
use cpps_pbs::types::{AuthId, SyncDirection};
use cpps_pbs::{ClientBuilder, Error};
use cpps_topology::live::sources::PveSource;

/// Backup report of the Proxmox Backup Server in PBS_REPOSITORY.
///
/// Exit status: 0 all is well; 1 a problem was found (RPO breach, failed or unknown
/// verification, failed job, unreadable datastore) or the report is partial (some parts could
/// not be read; each is printed with its error); 2 the report could not be made.
#[derive(Debug, Parser)]
#[command(version)]
struct Args {
    /// The longest the whole run may take, in seconds: the client's deadline, and the end of
    /// the run; what was read by then is reported.
    #[arg(long, value_name = "SECONDS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
    timeout: u64,
    /// Recovery-point objective: a newest backup older than this is a breach (`26h`, `1d12h`).
    #[arg(long, default_value = "26h", value_parser = parse_rpo)]
    rpo: Duration,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Report on every datastore the credentials can see, not only the repository's. PBS
    /// lists only those (proxmox-backup `get_datastore_list`): without Datastore.Audit or
    /// Datastore.Backup propagating from /datastore the report is partial.
    #[arg(long)]
    all_datastores: bool,
    /// The site this PBS is in (to tell cross-site sync jobs from local ones).
    #[arg(long)]
    site: Option<String>,
    /// The site of a remote, by remote name or host: `pbs-b=site-b` (repeatable).
    #[arg(long = "remote-site", value_parser = parse_pair)]
    remote_sites: Vec<(String, String)>,
    /// Print the plan of what would fix the report (run failed or overdue jobs, verify
    /// unverified guests); nothing is changed without --apply.
    #[arg(long)]
    fix: bool,
    /// With --fix: run the plan, waiting for each task to end.
    #[arg(long, requires = "fix")]
    apply: bool,
    /// Also judge each guest's backup chain, end to end: read the PVE cluster named by
    /// `PROXMOX_VE_ENDPOINT` (with `PROXMOX_VE_API_TOKEN` and the TLS variables, as
    /// `inventory` does) for its guests (a list that may leave guests out, without `VM.Audit`
    /// on `/vms`, is said and exits 1), its PBS storages (a guest whose storage writes to a
    /// datastore this report does not read is "cannot tell"), its vzdump jobs and their
    /// tasks; then this PBS's newest finished snapshots and their verification, and the copy
    /// named by `--copy`. One verdict per guest.
    #[arg(long)]
    chain: bool,
    /// With --chain: where the other site keeps the copies, `REMOTE:STORE[:NAMESPACE]` (a
    /// remote of this PBS, read with `GET /config/remote/{REMOTE}/scan/{STORE}/groups`; the
    /// namespace defaults to the PVE storage's). Without it every copy is "cannot tell".
    #[arg(long, requires = "chain", value_parser = parse_copy)]
    copy: Option<Copy>,
    /// With --copy: the auth-id the other site's pull job writes the copies as (its `owner`,
    /// `root@pam` when it names none). A push of this PBS to the `--copy` remote and store
    /// writes as that remote's `auth-id`, read from this PBS. A group there owned by another
    /// is the other site's own backup, not the copy; with neither known, whether a group is
    /// the copy cannot be told.
    #[arg(long, requires = "copy", value_name = "AUTHID", value_parser = parse_auth_id)]
    copy_owner: Option<AuthId>,
    /// With --chain: judge only these PVE storages (repeatable), whatever server they name; by
    /// default every PBS storage, less those on another
    /// server than the repository's (`PbsAddress::same_server` of its `server`, `port` and
    /// `fingerprint` against the repository's host, port and `PBS_FINGERPRINT`), each named
    /// on stderr.
    #[arg(long = "pve-storage", requires = "chain")]
    pve_storages: Vec<String>,
    /// A job whose next run is later than this is reported as overdue.
    #[arg(long, default_value = "1h", value_parser = parse_rpo)]
    overdue_grace: Duration,
}

/// Where the other site keeps the copies: a remote of this PBS, its datastore and namespace.
#[derive(Debug, Clone)]
struct Copy {
    remote: String,
    store: String,
    namespace: Option<String>,
}

fn parse_copy(text: &str) -> Result<Copy, String> {
    let mut parts = text.splitn(3, ':');
    match (parts.next(), parts.next(), parts.next()) {
        (Some(remote), Some(store), namespace) if !remote.is_empty() && !store.is_empty() => {
            Ok(Copy {
                remote: remote.to_owned(),
                store: store.to_owned(),
                namespace: namespace.map(str::to_owned),
            })
        }
        _ => Err(format!("`{text}` is not REMOTE:STORE[:NAMESPACE]")),
    }
}

fn parse_auth_id(text: &str) -> Result<AuthId, String> {
    text.parse::<AuthId>().map_err(|e| e.to_string())
}

fn parse_rpo(text: &str) -> Result<Duration, String> {
    parse_duration(text).map_err(|e| e.to_string())
}

fn parse_pair(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((remote, site)) if !remote.is_empty() && !site.is_empty() => {
            Ok((remote.to_owned(), site.to_owned()))
        }
        _ => Err(format!("`{text}` is not REMOTE=SITE")),
    }
}

async fn run(args: &Args) -> Result<(bool, bool), Error> {
    let timeout = Duration::from_secs(args.timeout);
    let builder = ClientBuilder::from_env(&cpps_http::env::process_env)?
        .deadline(timeout)
        .request_timeout(timeout);
    let store = builder.repository().map(|r| r.store().to_string());
    // How PVE's storages name this server (pve-storage `PBSPlugin.pm` `options`: `server`,
    // `port`, `fingerprint`): the repository's host and port, and the pinned fingerprint.
    let address = builder.repository().map(|r| {
        PbsAddress::new(r.host(), r.port())
            .fingerprint(cpps_http::env::process_env("PBS_FINGERPRINT"))
    });
    let pbs = builder.build()?;
    let stores = (!args.all_datastores).then(|| store.into_iter().collect::<Vec<_>>());
    // Every part ends by the timeout; what was read by then is reported.
    let inventory = Box::pin(report::collect_within(
        &pbs,
        stores.as_deref(),
        Some(timeout),
    ))
    .await;
    let mut sites = match &args.site {
        Some(site) => Sites::new(site.clone()),
        None => Sites::unknown(),
    };
    for (remote, site) in &args.remote_sites {
        sites = sites.with_remote(remote.clone(), site.clone());
    }
    let mut options = ReportOptions::new(args.rpo)
        .sites(sites.clone())
        .overdue_grace(args.overdue_grace);
    if let Some(stores) = stores {
        options = options.stores(stores);
    }
    let now = jiff::Timestamp::now().as_second();
    let report = report::build(&inventory, now, &options);
    let chains = if args.chain {
        let this = This {
            pbs: &pbs,
            address: address.as_ref(),
        };
        Some(Box::pin(chain(args, this, &inventory, &sites, now)).await)
    } else {
        None
    };
    print_report(args, &report, chains.as_ref());
    let chain_failing = chain_failing(chains.as_ref());
    for error in report.errors.iter().filter(|e| !e.not_supported) {
        eprintln!(
            "pbs-report: {} could not be read: {}",
            error.part, error.error
        );
    }
    let fix_failed = args.fix && run_fix(args, &pbs, &report, timeout).await;
    let list_failed = report
        .errors
        .iter()
        .any(|e| e.part.starts_with("datastores"));
    if inventory.datastores.is_empty() && list_failed {
        // Not even the datastore list: there is no report to speak of.
        return Err(Error::Config {
            name: "PBS_REPOSITORY",
            reason: "names a server that answered none of the report's reads".to_owned(),
        });
    }
    Ok((
        report.is_failing() || fix_failed || chain_failing,
        report.is_partial(),
    ))
}

/// Whether the backup chains fail the run (a guest not OK, a guest list that may be partial, or
/// no chain read at all), saying why on stderr.
fn chain_failing(chains: Option<&Result<Chains, String>>) -> bool {
    match chains {
        Some(Ok(chains)) => {
            if let Some(why) = &chains.guests_trimmed {
                eprintln!("pbs-report: the guest list may be partial: {why}");
            }
            chains.guests_trimmed.is_some()
                || chains.guests.iter().any(|c| c.verdict != Verdict::Ok)
        }
        Some(Err(error)) => {
            eprintln!("pbs-report: the backup chain could not be read from PVE: {error}");
            true
        }
        None => false,
    }
}

/// `--fix`: prints the plan, or with `--apply` runs it; true when an action failed.
async fn run_fix(
    args: &Args,
    pbs: &cpps_pbs::Client,
    report: &report::Report,
    timeout: Duration,
) -> bool {
    let plan = cpps_pbs::fix::plan(report);
    if plan.is_empty() {
        println!("\nfix: nothing to do");
        return false;
    }
    if !args.apply {
        println!("\nfix plan (nothing changed; run again with --apply):");
        for action in &plan {
            println!("  {action}");
        }
        return false;
    }
    println!("\nfix: applying {} action(s)", plan.len());
    let options = cpps_proxmox::family::WaitOptions::default()
        .timeout(Some(timeout))
        .intervals(Duration::from_millis(200), Duration::from_secs(2));
    let mut failed = false;
    for applied in cpps_pbs::fix::apply(pbs, &plan, &options).await {
        match &applied.outcome {
            Ok(status) => println!("  done: {} -> {status}", applied.action),
            Err(error) => {
                failed = true;
                println!("  FAILED: {}: {error}", applied.action);
            }
        }
    }
    failed
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    match Box::pin(run(&args)).await {
        Ok((false, false)) => ExitCode::SUCCESS,
        Ok(_) => ExitCode::from(1),
        Err(error) => {
            eprintln!("pbs-report: {}", report::error_chain(&error));
            ExitCode::from(2)
        }
    }
}

/// The RPO as hours when whole, else seconds.
fn rpo_text(rpo: Duration) -> String {
    let secs = rpo.as_secs();
    if secs.is_multiple_of(3600) {
        format!("{}h", secs / 3600)
    } else {
        format!("{secs}s")
    }
}

/// Prints the report, and the backup chain when it was asked for (text: one line per guest;
/// JSON: `{"report": …, "chain": […], "guests_trimmed": null | why}`); with a guest list that
/// may be partial, a line says so first.
fn print_report(args: &Args, report: &report::Report, chains: Option<&Result<Chains, String>>) {
    match (args.format, chains) {
        (Format::Text, _) => {
            print!("{}", report.to_text());
            if let Some(Ok(chains)) = chains {
                println!("\nbackup chain per guest (RPO {}):", rpo_text(args.rpo));
                if let Some(why) = &chains.guests_trimmed {
                    println!("  the guest list may be partial: {why}");
                }
                for chain in &chains.guests {
                    println!("  {chain}");
                }
            }
        }
        (Format::Json, None) => println!(
            "{}",
            serde_json::to_string_pretty(report).unwrap_or_default()
        ),
        (Format::Json, Some(chains)) => {
            let (chain, trimmed) = match chains {
                Ok(chains) => (
                    serde_json::to_value(&chains.guests).unwrap_or_default(),
                    chains.guests_trimmed.clone(),
                ),
                Err(error) => (serde_json::json!({"error": error}), None),
            };
            let both =
                serde_json::json!({"report": report, "chain": chain, "guests_trimmed": trimmed});
            println!(
                "{}",
                serde_json::to_string_pretty(&both).unwrap_or_default()
            );
        }
    }
}

/// The backup chain of every guest PVE listed, and why that list may leave guests out.
struct Chains {
    /// One verdict per guest listed.
    guests: Vec<GuestChain>,
    /// Why `GET /cluster/resources` may leave guests out (pve-manager `PVE/API2/Cluster.pm`
    /// `resources` skips, silently, each guest without `VM.Audit`), if it may.
    guests_trimmed: Option<String>,
}

/// This PBS: its client, and how PVE's storages would name it.
#[derive(Clone, Copy)]
struct This<'a> {
    pbs: &'a cpps_pbs::Client,
    address: Option<&'a PbsAddress>,
}

/// Whether `target` may write to this PBS (`address`): `false` only when
/// [`PbsAddress::same_server`] says it is another server, and `true` also when either address
/// is not known; one that only may be this server is read as "cannot tell" (`PbsSide::here`).
fn writes_here(address: Option<&PbsAddress>, target: &PbsTarget) -> bool {
    match (address, target.server.as_ref()) {
        (Some(mine), Some(theirs)) => mine.same_server(theirs),
        _ => true,
    }
}

/// `host:port` of an address, empty when not known.
fn host_port(address: Option<&PbsAddress>) -> String {
    address.map_or_else(String::new, |a| format!("{}:{}", a.host, a.port))
}

/// Reads the PVE side of the backup chain with the live audit's reader
/// ([`PveSource::backup_chain`], which BACKUP-005 uses too), then keeps the PBS storages,
/// less those that write to another server
/// ([`writes_here`]; pve-storage `src/PVE/Storage/PBSPlugin.pm` `options`: `server`, `port`,
/// `fingerprint` and `datastore` together name the place), or those of `--pve-storage`,
/// which are taken as named. One PBS holds many datastores (proxmox-backup
/// `src/api2/admin/datastore.rs` `get_datastore_list`): a storage on one this report did not
/// read (`stores`) is kept, and named on stderr, so that its guests are "not read".
async fn read_pve(
    args: &Args,
    stores: &[String],
    address: Option<&PbsAddress>,
    timeout: Duration,
) -> Result<(ChainInput, Option<String>), String> {
    let pve = cpps_proxmox::ClientBuilder::from_env(&cpps_http::env::process_env)
        .and_then(|b| b.deadline(timeout).request_timeout(timeout).build())
        .map_err(|e| report::error_chain(&e))?;
    let mut input = PveSource::backup_chain(&pve).await?;
    // As `inventory` does: `GET /access/permissions?path=/vms` says whether the list is whole.
    let trimmed = pve
        .cluster()
        .guest_list_trimmed()
        .await
        .unwrap_or_else(|e| {
            Some(format!(
                "whether it is whole could not be read: {}",
                report::error_chain(&e)
            ))
        });
    let elsewhere = |t: &PbsTarget| !writes_here(address, t);
    for t in input
        .targets
        .iter()
        .filter(|t| args.pve_storages.is_empty() && stores.contains(&t.datastore) && elsewhere(t))
    {
        eprintln!(
            "pbs-report: PVE storage {} writes to {}, not to this PBS ({}); not judged here (name it with --pve-storage to judge it all the same)",
            t.storage,
            host_port(t.server.as_ref()),
            host_port(address),
        );
    }
    input.retain_targets(|t| {
        if args.pve_storages.is_empty() {
            !elsewhere(t)
        } else {
            args.pve_storages.contains(&t.storage)
        }
    });
    // A storage on a datastore of this server that the report did not read stays, with its
    // jobs: its guests are "not read", never "no job" (`chain::site_backups`).
    for t in input
        .targets
        .iter()
        .filter(|t| !stores.contains(&t.datastore))
    {
        eprintln!(
            "pbs-report: PVE storage {} writes to datastore {}, which this report does not read; its guests cannot be told (--all-datastores reads it)",
            t.storage, t.datastore,
        );
    }
    Ok((input, trimmed))
}

/// The backup chain of every guest: PVE's side, this PBS's snapshots, the copies.
async fn chain(
    args: &Args,
    this: This<'_>,
    inventory: &report::Inventory,
    sites: &Sites,
    now: i64,
) -> Result<Chains, String> {
    let timeout = Duration::from_secs(args.timeout);
    let stores: Vec<String> = inventory.snapshots.keys().cloned().collect();
    let pbs = this.pbs;
    let (mut input, guests_trimmed) = read_pve(args, &stores, this.address, timeout).await?;
    // The targets on the datastores read; the others are "not read" (`chain::judge`).
    let read: Vec<PbsTarget> = input
        .targets
        .iter()
        .filter(|t| stores.contains(&t.datastore))
        .cloned()
        .collect();
    // Whether each list is whole is asked per datastore and namespace: only the answer for
    // the path itself is exact (`chain::snapshots_trimmed`).
    let rights = chain::read_path_rights(pbs, &read).await;
    // A storage whose server may be another (a host text that differs, no fingerprints on
    // both sides) is "cannot tell" (`PbsSide::here`); those of --pve-storage are taken as
    // named.
    let mut side = chain::PbsSide::new(false);
    if args.pve_storages.is_empty() {
        side.address = this.address.cloned();
    }
    side.backups = chain::site_backups(inventory, &read, &rights, now, args.rpo);
    input.here = side.here(&read);
    if let Some(copy) = &args.copy {
        let site = sites
            .site_of_name(&copy.remote)
            .map_or_else(|| format!("remote {}", copy.remote), str::to_owned);
        input.there = chain::read_remote_copies(
            pbs,
            &copy.remote,
            &copy.store,
            copy.namespace.as_deref(),
            &input.targets,
            &site,
            &copy_writers(args, copy, inventory),
        )
        .await;
    }
    Ok(Chains {
        guests: chain::judge(&input, now, args.rpo),
        guests_trimmed,
    })
}

/// The auth-ids the copies named by `--copy` are written as: `--copy-owner` (the other site's
/// pull), and the remote's `auth-id` when a push job of this PBS writes to that remote and
/// store (proxmox-backup `src/server/push.rs` `PushTarget::remote_user`; pbs-api-types
/// `src/remote.rs` `RemoteConfig.auth-id`). A group owned by another is not the copy: neither
/// sync writes into it (`src/server/pull.rs` `pull_ns`, `src/server/push.rs` `push_group_do`).
fn copy_writers(args: &Args, copy: &Copy, inventory: &report::Inventory) -> Vec<AuthId> {
    let pushes = inventory.sync_jobs.iter().any(|j| {
        j.direction() == SyncDirection::Push
            && j.remote.as_deref() == Some(copy.remote.as_str())
            && j.remote_store == copy.store
    });
    let remote = inventory.remotes.iter().find(|r| r.name == copy.remote);
    let pushed_as = remote.filter(|_| pushes).map(|r| r.auth_id.clone());
    args.copy_owner.iter().cloned().chain(pushed_as).collect()
}
