/**
 * Helpers for the applications on either side of Courier's reliable message service, usable by any Jakarta EE
 * application (they need only the Jakarta APIs; the OpenTelemetry API only to trace, where MicroProfile Telemetry
 * provides it; the build also packages them as the {@code client} jar).
 * {@link dev.courier.client.ReliableProducer} sends a message exactly when the caller's transaction commits, with
 * {@link dev.courier.client.BarrierCheckBack} as its check-back answer; {@link dev.courier.client.ReliableConsumer}
 * processes each message's effect once and reports it. {@link dev.courier.client.ClientTables} has their DDL.
 */
package dev.courier.client;
