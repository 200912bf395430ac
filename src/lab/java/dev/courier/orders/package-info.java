/**
 * The lab's orders service, an application of its own ({@code lab-orders.war}, context root {@code /lab-orders}),
 * not Courier: it knows Courier only through the client helpers ({@code courier-client.jar}, the reliable service
 * over HTTP) and the queue library ({@code courier-queue.jar}, in its own transaction), and its database through its
 * own datasource {@code jdbc/labOrders}. Placing an order writes the order and hands it to the inventory the way
 * the mode says, atomically: {@code queue}, the order and its message in one local transaction of the orders
 * database (the library); {@code rms}, the order and the producer's barrier row in one local transaction, the
 * message prepared before and confirmed after it (the reliable service); {@code xa}, the order, the inventory's
 * reservation and the {@code OrderPlaced} event in one two-phase commit. Nothing is written for a refused order.
 * {@code OrdersArchitectureTest} holds it to those two jars and the platform's APIs.
 */
package dev.courier.orders;
