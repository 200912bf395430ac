package dev.courier.reliable;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/**
 * Tells a producer about a dead message or a dead delivery: {@code POST {notificationUrl}} with a JSON body
 * ({@code notificationId}, {@code kind}, {@code messageId}, {@code topic}, {@code producer}, {@code subscriber}
 * for a delivery, {@code reason}, {@code at}). A 2xx answer means told; anything else is tried again later, so a
 * producer may see a notification twice and can tell by its {@code notificationId}. Every call is signed with the
 * producer's secret ({@link Signer}).
 */
@ApplicationScoped
class Notifier {

    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();

    @Inject
    private ReliableSettings settings;

    /** @return null when told, else what went wrong */
    String tell(URI url, String secret, String body) {
        String refused = CallTargets.refusal(url, settings.allowedUrlHosts);
        if (refused != null) { // what the name resolves to may have changed since the producer registered
            return "not called: " + refused;
        }
        try {
            HttpRequest.Builder request = HttpRequest.newBuilder(url)
                    .timeout(settings.callTimeout)
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body));
            HttpResponse<Void> response = http.send(
                    Signer.sign(request, secret, "POST", url, body).build(), HttpResponse.BodyHandlers.discarding());
            return response.statusCode() / 100 == 2 ? null : "notification answered HTTP " + response.statusCode();
        } catch (Signer.Unsigned e) {
            return e.getMessage();
        } catch (IOException e) {
            return "no answer from " + url + ": " + e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }
}
