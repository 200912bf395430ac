package dev.courier.web;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The lab's orders service's document ({@code src/lab/orders-openapi.yaml}) held to its resources ({@code
 * dev.courier.orders}, but the tests' fault seam) by the same rules as the product's.
 */
class OrdersOpenApiDocumentTest extends OpenApiDocumentTest {

    OrdersOpenApiDocumentTest() throws IOException {
        super(
                Path.of("src/lab/orders-openapi.yaml"),
                Path.of("target/test-classes"),
                name -> name.startsWith("dev.courier.orders.") && !name.endsWith(".OrderFaultsResource"));
    }
}
