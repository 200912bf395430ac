package dev.courier.orders;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/** The orders service's HTTP API, under {@code /lab-orders/api}. */
@ApplicationPath("api")
public class OrdersApplication extends Application {}
