-- Who may act for a producer (prepare, confirm, cancel its messages) and report for a subscriber: grantees
-- ("user:orders group:payments", space-separated), dev.courier.access.Principals. None: admins only.
ALTER TABLE courier_rm_producer ADD COLUMN principals VARCHAR(4000);
ALTER TABLE courier_rm_subscriber ADD COLUMN principals VARCHAR(4000);
