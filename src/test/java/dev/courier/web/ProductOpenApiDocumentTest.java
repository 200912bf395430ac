package dev.courier.web;

import java.io.IOException;
import java.nio.file.Path;

/** The product's document ({@code META-INF/openapi.yaml}, served at {@code /openapi}) and courier.war's resources. */
class ProductOpenApiDocumentTest extends OpenApiDocumentTest {

    ProductOpenApiDocumentTest() throws IOException {
        super(Path.of("src/main/resources/META-INF/openapi.yaml"), Path.of("target/classes"), name -> true);
    }
}
