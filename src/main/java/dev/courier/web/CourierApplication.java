package dev.courier.web;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/**
 * Courier's REST API, rooted at {@code /api}. Every error answers with an RFC 9457 problem body
 * ({@link dev.courier.platform.ProblemMapper}). Every operation needs an authenticated caller with its role
 * ({@link Roles}). The contract is {@code META-INF/openapi.yaml}, written by hand and served at {@code /openapi}
 * (nothing is scanned): {@code OpenApiDocumentTest} keeps its operations equal to the resources'.
 */
@ApplicationPath("/api")
public class CourierApplication extends Application {}
