package dev.courier.web;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;
import org.eclipse.microprofile.openapi.annotations.OpenAPIDefinition;
import org.eclipse.microprofile.openapi.annotations.info.Info;

/**
 * Courier's REST API, rooted at {@code /api}. Every error answers with an RFC 9457 problem body
 * ({@link dev.courier.platform.ProblemMapper}); the OpenAPI document is served at {@code /openapi}.
 */
@ApplicationPath("/api")
@OpenAPIDefinition(info = @Info(title = "Courier", version = "0.1",
        description = "Reliable messaging: transactional queue, reliable message service and XA, side by side."))
public class CourierApplication extends Application {
}
