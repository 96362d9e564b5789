//! `cargo xtask diagram [--topology FILE] [--out FILE]`: a Mermaid flowchart of a topology
//! (sites, hosts, guests, clusters, coloured by state), for the README.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;

/// Arguments of `cargo xtask diagram`.
#[derive(Debug, clap::Args)]
pub(crate) struct DiagramArgs {
    /// Topology file to draw; the embedded CPPS default when absent.
    #[arg(long)]
    topology: Option<PathBuf>,
    /// Write the diagram to this file (a `.md` file gets a ```mermaid fence); stdout when absent.
    #[arg(long)]
    out: Option<PathBuf>,
}

/// Loads the topology (exit 2 with the diagnostic when it does not load) and prints or writes
/// its diagram.
pub(crate) fn run(args: DiagramArgs) -> anyhow::Result<ExitCode> {
    let loaded = cpps_topology::load_or_default(args.topology.as_deref());
    let topology = match loaded {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{}", e.render());
            return Ok(ExitCode::from(2));
        }
    };
    let diagram = cpps_topology::diagram::mermaid(&topology);
    match &args.out {
        Some(path) => {
            let markdown = path.extension().is_some_and(|e| e == "md");
            let text = if markdown {
                format!("```mermaid\n{diagram}```\n")
            } else {
                diagram
            };
            std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
            println!("wrote {}", path.display());
        }
        None => print!("{diagram}"),
    }
    Ok(ExitCode::SUCCESS)
}
