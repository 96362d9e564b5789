//! Converting the storage domain: LINSTOR pools and Proxmox Backup Servers.

use std::net::IpAddr;

use crate::load::file::*;
use crate::model::ComponentKind as K;
use crate::model::*;

use super::{Cx, Target};

impl Cx<'_> {
    pub(super) fn linstor_pool(&mut self, p: &LinstorPoolFile) -> Option<LinstorPool> {
        let (id, mut meta) = self.component(K::LinstorPool, p)?;
        let site = self.reference(&mut meta, "site", Target::Kind(K::Site), &p.site);
        let mut nodes = Vec::new();
        for (i, n) in p.nodes.iter().enumerate() {
            self.locate(&mut meta, format!("nodes[{i}]"), &n.at);
            if let Some(host) = self.reference(
                &mut meta,
                format!("nodes[{i}].host"),
                Target::Kind(K::Host),
                &n.value.host,
            ) {
                nodes.push(PoolNode {
                    host,
                    diskful: n.value.diskful,
                });
            }
        }
        let backend = p.backend.as_ref().map(|b| {
            self.locate(&mut meta, "backend", &b.at);
            b.value
        });
        if let Some(pc) = &p.place_count {
            let pat = self.locate(&mut meta, "place_count", &pc.at);
            if pc.value == 0 {
                self.invalid("place_count", "place_count is at least 1", pat);
            }
        }
        let controller = p.controller.as_ref().map(|c| {
            self.locate(&mut meta, "controller", &c.at);
            let primary = self.opt_reference(
                &mut meta,
                "controller.primary",
                Target::Kind(K::Host),
                &c.value.primary,
            );
            let standby = self.references(
                &mut meta,
                "controller.standby",
                Target::Kind(K::Host),
                &c.value.standby,
            );
            let vip = self.field::<IpAddr>(&mut meta, "controller.vip", &c.value.vip);
            LinstorController {
                primary,
                standby,
                vip,
                ha: c.value.ha,
            }
        });
        let site = site?;
        Some(LinstorPool {
            id,
            site,
            provider: p.provider.clone(),
            storage_pool: p.storage_pool.clone(),
            nodes,
            place_count: p.place_count.as_ref().map(|pc| pc.value),
            controller,
            backend,
            meta,
        })
    }

    pub(super) fn pbs(&mut self, p: &PbsFile) -> Option<Pbs> {
        let (id, mut meta) = self.component(K::Pbs, p)?;
        let site = self.reference(&mut meta, "site", Target::Kind(K::Site), &p.site);
        let guest = self.opt_reference(&mut meta, "guest", Target::Kind(K::Guest), &p.guest);
        let datastores = p
            .datastores
            .iter()
            .enumerate()
            .map(|(i, d)| {
                self.locate(&mut meta, format!("datastores[{i}]"), &d.at);
                Datastore {
                    name: d.value.name.clone(),
                    encrypted: d.value.encrypted,
                }
            })
            .collect();
        let mut sync_to = Vec::new();
        for (i, s) in p.sync_to.iter().enumerate() {
            self.locate(&mut meta, format!("sync_to[{i}]"), &s.at);
            let target = self.reference(
                &mut meta,
                format!("sync_to[{i}].target"),
                Target::Kind(K::Pbs),
                &s.value.target,
            );
            let link = s.value.link.as_ref().and_then(|l| {
                self.reference(
                    &mut meta,
                    format!("sync_to[{i}].link"),
                    Target::Kind(K::Link),
                    l,
                )
            });
            if let Some(target) = target {
                sync_to.push(PbsSync { target, link });
            }
        }
        let rpo = self.field::<Rpo>(&mut meta, "rpo", &p.rpo);
        let site = site?;
        Some(Pbs {
            id,
            site,
            guest,
            datastores,
            sync_to,
            rpo,
            meta,
        })
    }
}
