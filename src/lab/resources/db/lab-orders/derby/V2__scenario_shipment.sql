-- scenario, xa mode: the shipping service (XaOrderPlacedListener) books one shipment per order whose OrderPlaced
-- event it consumed, in one XA transaction with the event's receive. The key keeps a copy of an event that comes
-- again from booking twice. No foreign key to scenario_order: a shipment without its order (an event of an order
-- that rolled back) must not happen, and the consistency check counts it instead of the broker dead-lettering it.
-- delivery: the JMS delivery count of the copy that booked it (1 unless earlier copies rolled back).
CREATE TABLE scenario_shipment (
    order_id   VARCHAR(36)  NOT NULL PRIMARY KEY,
    sku        VARCHAR(63)  NOT NULL,
    delivery   INT          NOT NULL,
    shipped_at TIMESTAMP    NOT NULL
);
