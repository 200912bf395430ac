-- The demo business's orders table (V4) leaves the product: the lab (courier-lab.war) creates it with its own
-- migrations (db/lab-orders, version table courier_lab_schema_version). A product server keeps no demo table.
DROP TABLE scenario_order;
