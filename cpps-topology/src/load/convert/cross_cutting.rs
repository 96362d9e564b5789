//! Converting cross-cutting capabilities, other labelled facts and suppressions.

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
            let at = self.loc(&a.at);
            meta.set_field_location(format!("alerts[{i}]"), at);
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
        Some(Capability {
            id,
            kind: c.kind,
            tool: c.tool.clone(),
            site,
            alerts,
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
        Some(Item {
            id,
            layer: i.layer.clone(),
            site,
            cluster,
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
}
