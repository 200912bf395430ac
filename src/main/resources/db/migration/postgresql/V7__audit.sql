-- audit: administrative actions, who did them and how they ended (dev.courier.audit.AuditTrail).
CREATE TABLE courier_audit (
    id        VARCHAR(36)  NOT NULL PRIMARY KEY,
    recorded_at TIMESTAMPTZ  NOT NULL,
    principal VARCHAR(200) NOT NULL,
    action    VARCHAR(63)  NOT NULL,
    target    VARCHAR(500) NOT NULL,
    status    INT          NOT NULL
);
CREATE INDEX courier_audit_recorded ON courier_audit (recorded_at);
