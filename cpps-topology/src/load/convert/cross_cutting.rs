//! Converting cross-cutting capabilities, other labelled facts, suppressions, and the documents'
//! pending items, rejected alternatives and contradictions.

use std::collections::HashMap;

use crate::load::file::*;
use crate::model::ComponentKind as K;
use crate::model::*;

use super::{Cx, Target};
use crate::load::FileErrorKind;

impl Cx<'_> {
    pub(super) fn capability(&mut self, c: &CapabilityFile) -> Option<Capability> {
        let (id, mut meta) = self.component(K::Capability, c)?;
        let site = self.opt_reference(&mut meta, "site", Target::Kind(K::Site), &c.site);
        let mut alerts = Vec::new();
        for (i, a) in c.alerts.iter().enumerate() {
            let at = self.locate(&mut meta, format!("alerts[{i}]"), &a.at);
            let state = match &a.value.state {
                Some(s) => s.value.0,
                None => {
                    self.error(
                        FileErrorKind::MissingState {
                            kind: "alert".to_owned(),
                            id: format!("{}.alerts[{i}]", c.id.value),
                        },
                        at,
                    );
                    State::Desired
                }
            };
            alerts.push(Alert {
                kind: a.value.kind,
                state,
                note: a.value.note.clone(),
                location: at,
            });
        }
        let metrics = match &c.metrics {
            Some(m) => {
                self.locate(&mut meta, "metrics", &m.at);
                m.value.clone()
            }
            None => Vec::new(),
        };
        let choices = self.capability_choices(&mut meta, c);
        Some(Capability {
            id,
            kind: c.kind,
            tool: c.tool.clone(),
            site,
            alerts,
            metrics,
            choices,
            meta,
        })
    }

    pub(super) fn item(&mut self, i: &ItemFile) -> Option<Item> {
        let (id, mut meta) = self.component(K::Item, i)?;
        let site = self.opt_reference(&mut meta, "site", Target::Kind(K::Site), &i.site);
        let cluster = self.opt_reference(
            &mut meta,
            "cluster",
            Target::Kind(K::K3sCluster),
            &i.cluster,
        );
        let tool = self.text_field(&mut meta, "tool", &i.tool);
        let replaces = self.text_field(&mut meta, "replaces", &i.replaces);
        let role = i.role.as_ref().map(|r| {
            self.locate(&mut meta, "role", &r.at);
            r.value
        });
        Some(Item {
            id,
            layer: i.layer.clone(),
            site,
            cluster,
            tool,
            replaces,
            role,
            meta,
        })
    }

    pub(super) fn suppression(&mut self, s: &SuppressionFile) -> Option<Suppression> {
        let at = self.loc(&s.rule.at);
        let rule = s.rule.value.trim().to_owned();
        if rule.is_empty() {
            self.invalid("rule", "a suppression names a rule id", at);
        }
        let sat = self.loc(&s.subject.at);
        let subject = s.subject.value.trim().to_owned();
        if subject != "*" {
            self.refs.push((Target::Any, subject.clone(), sat));
        }
        let reason = s.reason.value.trim().to_owned();
        if reason.is_empty() {
            let rat = self.loc(&s.reason.at);
            self.invalid("reason", "a suppression must give a reason", rat);
        }
        let expires = s
            .expires
            .as_ref()
            .and_then(|e| self.parse::<jiff::civil::Date>("expires", e));
        Some(Suppression {
            rule,
            subject,
            reason,
            expires,
            location: at,
        })
    }

    fn text_field(
        &mut self,
        meta: &mut Meta,
        path: &str,
        v: &Option<At<String>>,
    ) -> Option<String> {
        let v = v.as_ref()?;
        self.locate(meta, path, &v.at);
        Some(v.value.trim().to_owned())
    }

    /// The one state of a record that is not a component (a pending item, a claim).
    fn record_state(
        &mut self,
        kind: &str,
        id: &str,
        state: &Option<At<FileState>>,
        at: Location,
    ) -> State {
        match state {
            Some(s) => s.value.0,
            None => {
                self.error(
                    FileErrorKind::MissingState {
                        kind: kind.to_owned(),
                        id: id.to_owned(),
                    },
                    at,
                );
                State::Desired
            }
        }
    }

    fn quote(&mut self, field: &str, source: &At<String>, text: &At<String>) -> Quote {
        for (name, v) in [("source", source), ("text", text)] {
            if v.value.trim().is_empty() {
                let at = self.loc(&v.at);
                self.invalid(
                    &format!("{field}.{name}"),
                    "a quote names its document and its words",
                    at,
                );
            }
        }
        Quote {
            source: source.value.trim().to_owned(),
            text: text.value.clone(),
        }
    }

    /// The records of the documents that are not components: pending items, rejected
    /// alternatives, contradictions. Their ids are unique among themselves and the components'
    /// (a finding or a table names them bare), but nothing refers to them as components. An
    /// item's `replaces` names a rejected alternative.
    pub(super) fn documents(
        &mut self,
        f: &TopologyFile,
        items: &[Item],
    ) -> (
        Vec<PendingItem>,
        Vec<RejectedAlternative>,
        Vec<Contradiction>,
    ) {
        let mut seen: HashMap<String, Location> = HashMap::new();
        let mut pending = Vec::with_capacity(f.pending.len());
        for p in &f.pending {
            pending.push(self.pending_item(&mut seen, p));
        }
        let mut rejected = Vec::with_capacity(f.rejected.len());
        for r in &f.rejected {
            rejected.push(self.rejected_alternative(&mut seen, r));
        }
        let mut contradictions = Vec::with_capacity(f.contradictions.len());
        for c in &f.contradictions {
            contradictions.push(self.contradiction(&mut seen, c));
        }
        self.replaced_alternatives(items, &rejected);
        (pending, rejected, contradictions)
    }

    /// The location of a document record's `id`, which is an error where a component or an
    /// earlier record (`seen`) has it already, or where it is empty.
    fn register_record(
        &mut self,
        seen: &mut HashMap<String, Location>,
        id: &At<String>,
    ) -> Location {
        let at = self.loc(&id.at);
        let first = self
            .ids
            .get(id.value.as_str())
            .map(|(_, l)| l)
            .or_else(|| seen.get(&id.value).copied());
        match first {
            Some(first) => self.error(
                FileErrorKind::DuplicateId {
                    id: id.value.clone(),
                    first,
                },
                at,
            ),
            None => {
                seen.insert(id.value.clone(), at);
            }
        }
        if id.value.trim().is_empty() {
            self.invalid("id", "an id is not empty", at);
        }
        at
    }

    /// A pending item; what it is `about` is resolved later, as any component.
    fn pending_item(
        &mut self,
        seen: &mut HashMap<String, Location>,
        p: &PendingFile,
    ) -> PendingItem {
        let location = self.register_record(seen, &p.id);
        let quote = self.quote("quote", &p.quote.value.source, &p.quote.value.text);
        let state = self.record_state("pending item", &p.id.value, &p.state, location);
        let mut about = Vec::with_capacity(p.about.len());
        let mut about_locations = Vec::with_capacity(p.about.len());
        for a in &p.about {
            let at = self.loc(&a.at);
            self.refs.push((Target::Any, a.value.clone(), at));
            about.push(a.value.clone());
            about_locations.push(at);
        }
        PendingItem {
            id: p.id.value.clone(),
            section: p.section.clone(),
            quote,
            state,
            about,
            about_locations,
            note: p.note.clone(),
            location,
        }
    }

    /// A rejected alternative: what adopts it, or the rule that flags it.
    fn rejected_alternative(
        &mut self,
        seen: &mut HashMap<String, Location>,
        r: &RejectedFile,
    ) -> RejectedAlternative {
        let location = self.register_record(seen, &r.id);
        let adopted_when = r
            .adopted_when
            .as_ref()
            .map(|a| AdoptionSignals {
                tools: a
                    .value
                    .tools
                    .iter()
                    .map(|t| t.trim().to_lowercase())
                    .filter(|t| !t.is_empty())
                    .collect(),
                cni: a.value.cni.clone(),
                patterns: a.value.patterns.clone(),
                uniform_gpu_placement: a.value.uniform_gpu_placement,
                choices: adoption_choices(&a.value),
                now_only: a.value.now_only,
                until_clusters: a.value.until_clusters,
            })
            .unwrap_or_default();
        let flagged_by = r.flagged_by.as_ref().map(|x| x.value.trim().to_owned());
        if adopted_when.is_empty() && flagged_by.is_none() {
            self.invalid(
                "adopted_when",
                "a rejected alternative says what adopts it (`adopted_when`) or which rule flags it (`flagged_by`)",
                location,
            );
        }
        RejectedAlternative {
            id: r.id.value.clone(),
            topic: r.topic.clone(),
            decision: r.decision.clone(),
            alternative: r.alternative.clone(),
            reason: r.reason.clone(),
            adr: r.adr.clone(),
            adopted_when,
            flagged_by,
            note: r.note.clone(),
            location,
        }
    }

    /// A contradiction between the documents: its subject and at least two quoted claims.
    fn contradiction(
        &mut self,
        seen: &mut HashMap<String, Location>,
        c: &ContradictionFile,
    ) -> Contradiction {
        let location = self.register_record(seen, &c.id);
        let subject_location = self.loc(&c.subject.at);
        self.refs
            .push((Target::Any, c.subject.value.clone(), subject_location));
        let mut claims = Vec::with_capacity(c.claims.len());
        for (i, claim) in c.claims.iter().enumerate() {
            let at = self.loc(&claim.at);
            let quote = self.quote(
                &format!("claims[{i}]"),
                &claim.value.source,
                &claim.value.quote,
            );
            let state = self.record_state(
                "claim",
                &format!("{}.claims[{i}]", c.id.value),
                &claim.value.state,
                at,
            );
            claims.push(DocumentClaim {
                quote,
                state,
                value: claim.value.value.clone(),
                location: at,
            });
        }
        if claims.len() < 2 {
            self.invalid(
                "claims",
                "a contradiction quotes at least two claims",
                location,
            );
        }
        let follows = self.record_state("contradiction", &c.id.value, &c.follows, location);
        Contradiction {
            id: c.id.value.clone(),
            subject: c.subject.value.clone(),
            field: c.field.clone(),
            claims,
            follows,
            follows_value: c.follows_value.clone(),
            note: c.note.clone(),
            location,
            subject_location,
        }
    }

    /// An item's `replaces` names a rejected alternative.
    fn replaced_alternatives(&mut self, items: &[Item], rejected: &[RejectedAlternative]) {
        for item in items {
            if let Some(r) = &item.replaces
                && !rejected.iter().any(|x| &x.id == r)
            {
                let at = item.meta.at("replaces");
                self.error(
                    FileErrorKind::UnknownReference {
                        kind: "rejected alternative".to_owned(),
                        id: r.clone(),
                        suggestion: crate::load::suggest(r, rejected.iter().map(|x| x.id.as_str())),
                        found_kind: None,
                    },
                    at,
                );
            }
        }
    }
}

/// The `(field, value)` pairs of the decision-table fields that adopt a rejected alternative.
fn adoption_choices(a: &AdoptionFile) -> Vec<(&'static str, &'static str)> {
    let mut out = Vec::new();
    out.extend(a.backend.iter().map(|v| ("backend", v.as_str())));
    out.extend(a.repo_layout.iter().map(|v| ("repo_layout", v.as_str())));
    out.extend(a.iac_tool.iter().map(|v| ("iac_tool", v.as_str())));
    out.extend(a.secrets_tool.iter().map(|v| ("secrets_tool", v.as_str())));
    out.extend(
        a.remote_access
            .iter()
            .map(|v| ("remote_access", v.as_str())),
    );
    out.extend(a.dns_failover.iter().map(|v| ("dns_failover", v.as_str())));
    out.extend(a.edge_defense.iter().map(|v| ("edge_defense", v.as_str())));
    out
}

impl Cx<'_> {
    /// A capability's decision-table fields, each located.
    fn capability_choices(&mut self, meta: &mut Meta, c: &CapabilityFile) -> CapabilityChoices {
        fn one<T: Copy>(
            cx: &mut Cx<'_>,
            meta: &mut Meta,
            path: &str,
            v: &Option<At<T>>,
        ) -> Option<T> {
            v.as_ref().map(|v| {
                cx.locate(meta, path, &v.at);
                v.value
            })
        }
        fn many<T: Clone>(
            cx: &mut Cx<'_>,
            meta: &mut Meta,
            path: &str,
            v: &Option<At<Vec<T>>>,
        ) -> Vec<T> {
            v.as_ref().map_or_else(Vec::new, |v| {
                cx.locate(meta, path, &v.at);
                v.value.clone()
            })
        }
        CapabilityChoices {
            iac_tool: one(self, meta, "iac_tool", &c.iac_tool),
            secrets_tool: one(self, meta, "secrets_tool", &c.secrets_tool),
            remote_access: many(self, meta, "remote_access", &c.remote_access),
            dns_failover: one(self, meta, "dns_failover", &c.dns_failover),
            edge_defense: many(self, meta, "edge_defense", &c.edge_defense),
        }
    }
}
