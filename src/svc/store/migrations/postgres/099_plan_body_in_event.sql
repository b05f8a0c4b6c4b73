-- A plan is stored once (docs/decisions/172): its row keeps the columns readers filter on, and when
-- body_event_id is set the body is '' and the plan is read from the payload of that `plan.created`
-- ledger event (which the spec requires to carry the plan anyway). Rows written before keep their body.
ALTER TABLE plans ADD COLUMN body_event_id TEXT;
