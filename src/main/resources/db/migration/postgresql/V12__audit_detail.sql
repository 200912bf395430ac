-- What an administrative call asked for (its request body, e.g. the grants it set), and for a failed login how
-- many failures its address has had: dev.courier.audit.AuditTrail.
ALTER TABLE courier_audit ADD COLUMN detail VARCHAR(10000);
