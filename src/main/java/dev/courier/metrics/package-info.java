/**
 * Metrics at {@code /metrics} on the management port (Prometheus text, MicroProfile Metrics): the gauges of what queues and reliable
 * messages hold, refreshed on a timer from each capability's readings, so a scrape costs no query. Counters of
 * what happened are kept where it happens ({@code QueueMeters}, {@code ReliableMeters}); the JVM's and Liberty's
 * pools come with the server's features.
 */
package dev.courier.metrics;
