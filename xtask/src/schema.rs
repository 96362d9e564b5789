//! `cargo xtask schema [--check]`: write (or verify) the JSON Schema of the topology file format
//! at `cpps-topology/schema/topology.schema.json`.

use std::process::ExitCode;

use anyhow::Context as _;

/// Arguments of `cargo xtask schema`.
#[derive(Debug, clap::Args)]
pub(crate) struct SchemaArgs {
    /// Verify that the committed schema is current instead of writing it (exit 1 when stale).
    #[arg(long)]
    check: bool,
}

/// Writes the schema, or with `--check` compares it with the committed file.
pub(crate) fn run(args: SchemaArgs) -> anyhow::Result<ExitCode> {
    let path = crate::workspace_root()?
        .join("cpps-topology")
        .join(cpps_topology::schema::SCHEMA_PATH);
    let schema = cpps_topology::schema::json_schema_string();
    if args.check {
        let committed = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        if committed == schema {
            println!("{} is current", path.display());
            return Ok(ExitCode::SUCCESS);
        }
        eprintln!(
            "{} is stale: run `cargo xtask schema` and commit the result",
            path.display()
        );
        return Ok(ExitCode::from(1));
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    std::fs::write(&path, schema).with_context(|| format!("writing {}", path.display()))?;
    println!("wrote {}", path.display());
    Ok(ExitCode::SUCCESS)
}
