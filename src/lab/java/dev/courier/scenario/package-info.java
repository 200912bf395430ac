/**
 * The demo business's inventory side and the lab's own work, in courier-lab.war beside Courier: the inventory
 * service (the queue worker, the rms message-driven bean), XA mode's shipping service, the rms set-up, the
 * consistency check and the lab's handles ({@code /api/scenario}). The orders service is an application of its own
 * ({@code dev.courier.orders}, lab-orders.war, its own database). Guarantee checked by {@link
 * dev.courier.scenario.Consistency} from both databases: every order ends with exactly one reservation or a
 * rejection, and stock never goes negative. {@code xa}: one XA transaction over both databases and the broker,
 * whose event the shipping service consumes in a local transaction, once per order; {@code rms}: Courier's
 * reliable message service between the two services; {@code queue}: a transactional queue in the orders database
 * and an inventory worker with an inbox.
 */
package dev.courier.scenario;
