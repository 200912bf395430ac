package dev.courier.web;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The lab's document ({@code src/lab/openapi.yaml}) held to the lab's resources (the demo business and the
 * benchmarks, compiled beside the tests) by the same rules as the product's.
 */
class LabOpenApiDocumentTest extends OpenApiDocumentTest {

    LabOpenApiDocumentTest() throws IOException {
        super(
                Path.of("src/lab/openapi.yaml"),
                Path.of("target/test-classes"),
                name -> name.startsWith("dev.courier.scenario.") || name.startsWith("dev.courier.bench."));
    }
}
