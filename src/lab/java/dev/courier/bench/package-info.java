/**
 * Benchmarks that run inside the server, so that what they time is Courier (EJB, JTA, the resource adapter and
 * the SQL), not an HTTP client. Disabled unless {@code courier.bench.enabled=true}; driven by
 * {@code mvn -Pbench verify}, which also runs the raw-JDBC baselines and prints the comparison.
 */
package dev.courier.bench;
