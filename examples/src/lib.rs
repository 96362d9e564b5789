//! Thin example binaries over the cpps crates: argument parsing, wiring and printing only.
//!
//! The binaries live in `src/bin/`; logic worth testing lives in the library crates.
#![forbid(unsafe_code)]

// The README's Rust snippets are compiled (and the first screen's run) as doc tests of this
// crate, which depends on every client, so that the README stays true.
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

use std::path::PathBuf;

use cpps_topology::live::endpoints::Endpoints;
use cpps_topology::model::Topology;

/// The `--format` of the binaries that print a report as text or as JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Text for people.
    Text,
    /// JSON for programs.
    Json,
}

/// Where the live systems are, as `audit` and `exporter` take it: the topology, and an
/// endpoints file or the clients' environment variables for one site.
#[derive(Debug, clap::Args)]
pub struct LiveTargets {
    /// The topology file (default: the embedded CPPS topology).
    #[arg(long)]
    pub topology: Option<PathBuf>,
    /// The endpoints file (default: the clients' environment variables, for `--site`).
    #[arg(long)]
    pub endpoints: Option<PathBuf>,
    /// The site the environment variables describe (needed when the topology has several).
    #[arg(long)]
    pub site: Option<String>,
    /// The K3s cluster `KUBECONFIG` reaches, when using the environment.
    #[arg(long)]
    pub kube_cluster: Option<String>,
}

impl LiveTargets {
    /// The endpoints of `--endpoints`, or else of the clients' variables read through `lookup`
    /// for `--site` (or the topology's only site), checked against `topology`.
    pub fn endpoints(
        &self,
        topology: &Topology,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Endpoints, String> {
        let endpoints = match &self.endpoints {
            Some(path) => Endpoints::load(path),
            None => {
                let site = match (&self.site, topology.sites()) {
                    (Some(s), _) => s.clone(),
                    (None, [only]) => only.id.to_string(),
                    (None, _) => {
                        return Err("the topology has several sites: give --endpoints, or --site for the environment variables".to_owned());
                    }
                };
                Endpoints::from_env(&site, self.kube_cluster.as_deref(), lookup)
            }
        };
        endpoints
            .and_then(|e| e.check_against(topology).map(|()| e))
            .map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::LiveTargets;

    #[test]
    fn the_environment_needs_a_site_when_the_topology_has_several() {
        let topology = cpps_topology::default_topology();
        let targets = LiveTargets {
            topology: None,
            endpoints: None,
            site: None,
            kube_cluster: None,
        };
        let err = targets.endpoints(&topology, &|_| None).unwrap_err();
        assert_eq!(
            err,
            "the topology has several sites: give --endpoints, or --site for the environment variables"
        );
        let for_sp = LiveTargets {
            site: Some("sp".to_owned()),
            ..targets
        };
        let vyos = |k: &str| (k == "VYOS_URL").then(|| "https://router.sp/".to_owned());
        let endpoints = for_sp.endpoints(&topology, &vyos).unwrap();
        let sp = &endpoints.sites["sp"];
        assert_eq!(sp.vyos.as_ref().unwrap().url, "https://router.sp/");
        assert!(sp.proxmox.is_none());
        let unknown = LiveTargets {
            site: Some("atlantis".to_owned()),
            ..for_sp
        };
        let err = unknown.endpoints(&topology, &vyos).unwrap_err();
        assert_eq!(err, "sites.atlantis: the topology has no site `atlantis`");
    }
}
