/**
 * XA two-phase commit, the baseline: one container-managed XA transaction spans the application database and
 * the JMS send, so the business row and the message commit together or not at all. {@link dev.courier.twophase.XaProbe}
 * and {@link dev.courier.twophase.XaProbeListener} are the smallest proof of that on this stack, kept as a
 * permanent regression test.
 */
package dev.courier.twophase;
