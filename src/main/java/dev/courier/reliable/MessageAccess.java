package dev.courier.reliable;

import dev.courier.access.Grants;
import dev.courier.access.Principals;

/**
 * Who may act on a message: its topic's grants ({@link Grants#NONE} when it has none) and the principals of its
 * producer ({@link Principals#NONE}: admins only).
 */
public record MessageAccess(String topic, Grants grants, String producer, Principals producerPrincipals) {}
