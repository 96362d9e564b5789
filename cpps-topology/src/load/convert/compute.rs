//! Converting the compute domain: hardware tiers, sites, Proxmox clusters, hosts, guests.

use crate::load::file::*;
use crate::model::ComponentKind as K;
use crate::model::*;

use super::{Cx, Target};
use crate::load::FileErrorKind;

impl Cx<'_> {
    fn gpu(&mut self, meta: &mut Meta, path: &str, g: &At<GpuFile>) -> Option<Gpu> {
        self.locate(meta, path, &g.at);
        let model = g.value.model.value.trim().to_owned();
        if model.is_empty() {
            let mat = self.loc(&g.value.model.at);
            self.invalid(&format!("{path}.model"), "the GPU model is empty", mat);
            return None;
        }
        if let Some(count) = &g.value.count
            && count.value == 0
        {
            let cat = self.loc(&count.at);
            self.invalid(&format!("{path}.count"), "a GPU count is at least 1", cat);
            return None;
        }
        Some(Gpu {
            model,
            count: g.value.count.as_ref().map(|c| c.value),
        })
    }

    pub(super) fn tier(&mut self, tier: &TierFile) -> Option<HardwareTier> {
        let at = self.loc(&tier.id.at);
        let id = self.parse("id", &tier.id)?;
        if let Some(&first) = self.tiers.get(&tier.id.value) {
            self.error(
                FileErrorKind::DuplicateId {
                    id: tier.id.value.clone(),
                    first,
                },
                at,
            );
            return None;
        }
        self.tiers.insert(tier.id.value.clone(), at);
        let c = &tier.capabilities;
        Some(HardwareTier {
            id,
            description: tier.description.clone(),
            capabilities: TierCapabilities {
                igpu: c.igpu,
                gpu_passthrough_vm: c.gpu_passthrough_vm,
                gpu_lxc_only: c.gpu_lxc_only,
                gpu_shared_with_display: c.gpu_shared_with_display,
            },
            location: at,
        })
    }

    pub(super) fn site(&mut self, s: &SiteFile) -> Option<Site> {
        let (id, meta) = self.component(K::Site, s)?;
        Some(Site {
            id,
            name: s.name.clone(),
            meta,
        })
    }

    pub(super) fn proxmox_cluster(&mut self, c: &ProxmoxClusterFile) -> Option<ProxmoxCluster> {
        let (id, mut meta) = self.component(K::ProxmoxCluster, c)?;
        let site = self.reference(&mut meta, "site", Target::Kind(K::Site), &c.site)?;
        Some(ProxmoxCluster { id, site, meta })
    }

    pub(super) fn host(&mut self, h: &HostFile) -> Option<Host> {
        let (id, mut meta) = self.component(K::Host, h)?;
        let site = self.reference(&mut meta, "site", Target::Kind(K::Site), &h.site);
        let proxmox_cluster = self.opt_reference(
            &mut meta,
            "proxmox_cluster",
            Target::Kind(K::ProxmoxCluster),
            &h.proxmox_cluster,
        );
        let tier = self.opt_reference(&mut meta, "tier", Target::Tier, &h.tier);
        let gpus = h
            .gpus
            .iter()
            .enumerate()
            .filter_map(|(i, g)| self.gpu(&mut meta, &format!("gpus[{i}]"), g))
            .collect();
        let pve_version = self.field::<Version>(&mut meta, "pve_version", &h.pve_version);
        let nvidia_driver = self.field::<Version>(&mut meta, "nvidia_driver", &h.nvidia_driver);
        let linstor = h.linstor.as_ref().map(|l| {
            self.locate(&mut meta, "linstor", &l.at);
            if l.value.roles.at.line() > 0 {
                self.locate(&mut meta, "linstor.roles", &l.value.roles.at);
            }
            let interface = l.value.interface.as_ref().map(|i| {
                self.locate(&mut meta, "linstor.interface", &i.at);
                i.value.clone()
            });
            HostLinstor {
                roles: l.value.roles.value.clone(),
                interface,
            }
        });
        let site = site?;
        Some(Host {
            id,
            site,
            proxmox_cluster,
            tier,
            gpus,
            pve_version,
            linstor,
            nvidia_driver,
            placeholder: h.placeholder,
            meta,
        })
    }

    pub(super) fn guest(&mut self, g: &GuestFile) -> Option<Guest> {
        let (id, mut meta) = self.component(K::Guest, g)?;
        let host = self.reference(&mut meta, "host", Target::Kind(K::Host), &g.host);
        self.locate(&mut meta, "kind", &g.kind.at);
        let privileged = self.flag(&mut meta, "privileged", &g.privileged);
        if privileged && g.kind.value == GuestKind::Vm {
            let at = meta.at("privileged");
            self.invalid("privileged", "only an LXC can be privileged", at);
        }
        let ha = self.flag(&mut meta, "ha", &g.ha);
        let ha_state = self.state_of(&mut meta, "ha_state", &g.ha_state);
        let gpu = g
            .gpu
            .as_ref()
            .and_then(|gp| self.gpu(&mut meta, "gpu", gp))
            .map(Box::new);
        let storage = self.opt_reference(
            &mut meta,
            "storage",
            Target::Kind(K::LinstorPool),
            &g.storage,
        );
        let backup = self.opt_reference(&mut meta, "backup", Target::Kind(K::Pbs), &g.backup);
        let rpo = self.field::<Rpo>(&mut meta, "rpo", &g.rpo);
        let host = host?;
        Some(Guest {
            id,
            host,
            kind: g.kind.value,
            privileged,
            ha,
            ha_state,
            on_boot: g.on_boot,
            role: g.role.clone(),
            gpu,
            storage,
            backup,
            rpo,
            meta,
        })
    }
}
