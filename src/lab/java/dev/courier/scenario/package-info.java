/**
 * The demo business that the comparison runs through every mechanism: placing an order creates the order (orders
 * database, Courier's own) and reserves stock for it (inventory database, a second one). Guarantee checked by
 * {@link dev.courier.scenario.Consistency} from both databases: every order ends with exactly one reservation or
 * a rejection, and stock never goes negative. {@code xa}: one XA transaction over both databases and the broker,
 * whose event a shipping service consumes in a local transaction, once per order; {@code rms}: Courier's
 * reliable message service between the two services; {@code queue}: a transactional queue in the orders database
 * and an inventory worker with an inbox.
 */
package dev.courier.scenario;
