package dev.courier.client;

import java.time.Duration;
import java.util.Map;

/**
 * The calls an upstream or downstream application makes to Courier's reliable message service. {@link HttpCourierApi}
 * makes them over HTTP; this interface is the seam where an application (or a test) puts its own transport.
 * Every method throws {@link CourierException} when the call did not succeed.
 */
public interface CourierApi {

    /**
     * Prepares a message. @param checkBackAfter null for Courier's default @return the message id
     */
    String prepare(String topic, String producer, String payloadJson, Map<String, String> headers, Duration checkBackAfter);

    void confirm(String messageId);

    void cancel(String messageId);

    void consumed(String messageId, String subscriber);

    void failed(String messageId, String subscriber, String reason);
}
