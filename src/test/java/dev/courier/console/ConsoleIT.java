package dev.courier.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.courier.testing.CourierDeployment;
import dev.courier.testing.Http;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.UUID;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The console in a real browser: headless Chromium (the machine's {@code chromium} and {@code chromedriver}),
 * logged in as the operator would be (HTTP Basic, the browser keeps the credentials for the realm). An admin
 * follows a queue's depth as messages arrive, without reloading; replays a dead letter and sees it leave the
 * list; a consumer is refused the dead letters. Screenshots of the pages go to {@code target/console}
 * ({@code docs/console} holds copies for the README).
 */
@ExtendWith(ArquillianExtension.class)
class ConsoleIT {

    private static final Duration PATIENCE = Duration.ofSeconds(20);
    private static final Path SCREENSHOTS = Path.of("target/console");

    private final Http http = Http.server();
    private final String queue =
            "console_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
    private ChromeDriver browser;

    @Deployment(testable = false)
    static WebArchive deployment() {
        return CourierDeployment.war();
    }

    @BeforeEach
    void queue() {
        assertEquals(
                201, http.put("api/queues/" + queue, "{\"maxAttempts\": 1}").status());
    }

    @AfterEach
    void close() {
        if (browser != null) {
            browser.quit();
        }
        http.delete("api/queues/" + queue);
    }

    @Test
    void an_admin_sees_a_queue_fill_without_reloading_and_replays_a_dead_letter() throws IOException {
        browser = logIn("admin");
        open("#/");
        WebElement depth = waitFor(By.cssSelector("tr[data-queue='" + queue + "'] td[data-field='depth']"));
        assertEquals("0", depth.getText());
        assertEquals(
                201,
                http.post(
                                "api/queues/" + queue + "/messages",
                                "[{\"payload\": {\"order\": 1}}, {\"payload\": {\"order\": 2}}, {\"payload\": {\"order\": 3}}]")
                        .status());
        new WebDriverWait(browser, PATIENCE)
                .until(ExpectedConditions.textToBe(
                        By.cssSelector("tr[data-queue='" + queue + "'] td[data-field='depth']"), "3"));
        Object loads = browser.executeScript("return performance.getEntriesByType('navigation').length");
        assertEquals(1L, loads, "the overview refreshed itself: one page load");
        waitFor(By.cssSelector("#chart .uplot"));
        screenshot("overview");

        // One message to the dead letters: received and released, its only attempt spent.
        JsonObject leased = http.post("api/queues/" + queue + "/receive", "{\"max\": 1}")
                .json()
                .getJsonArray("messages")
                .getJsonObject(0);
        String dead = leased.getString("id");
        assertEquals(
                204,
                http.post(
                                "api/queues/" + queue + "/messages/" + dead + "/release",
                                "{\"leaseToken\": \"" + leased.getString("leaseToken") + "\"}")
                        .status());

        open("#/queue/" + queue);
        waitFor(By.cssSelector("#messages tr[data-id]"));
        screenshot("queue");
        open("#/queue/" + queue + "/" + dead);
        assertTrue(waitFor(By.cssSelector("#message pre")).getText().contains("\"order\""));
        screenshot("message");

        open("#/dead/" + queue);
        waitFor(By.cssSelector("#messages tr[data-id='" + dead + "'] input[data-select]"))
                .click();
        screenshot("dead-letters");
        browser.findElement(By.id("replay-selected")).click();
        waitFor(By.id("no-dead"));
        assertEquals("replayed 1", waitFor(By.id("notice")).getText());
        assertEquals(0, http.get("api/queues/" + queue).json().getInt("dead"), "replayed in the database too");

        open("#/producers");
        waitFor(By.id("producers"));
        screenshot("producers");
        open("#/messages");
        waitFor(By.id("rms"));
        // The filter bar: a labelled select per state filter, no array or element printed as text.
        WebElement filters = waitFor(By.id("filters"));
        assertFalse(filters.getText().contains("[object"), filters.getText());
        assertFalse(filters.getText().contains(","), filters.getText());
        assertEquals(
                6,
                filters.findElements(By.cssSelector("select[name=state] option"))
                        .size());
        assertEquals(
                4,
                filters.findElements(By.cssSelector("select[name=deliveryState] option"))
                        .size());
        screenshot("reliable-messages");
        open("#/audit");
        waitFor(By.cssSelector("#audit tbody tr")); // (newest first by the server's clock, which other tests shift)
        screenshot("audit");
    }

    @Test
    void a_consumer_is_refused_the_dead_letters() {
        browser = logIn("consumer");
        open("#/dead/" + queue);
        WebElement problem = waitFor(By.id("problem"));
        new WebDriverWait(browser, PATIENCE).until(ExpectedConditions.visibilityOf(problem));
        assertTrue(problem.getText().startsWith("403"), problem.getText());
        open("#/queue/" + queue);
        waitFor(By.id("messages"));
        assertTrue(browser.findElements(By.id("replay-selected")).isEmpty());
    }

    /**
     * A fresh browser (its own profile) logged in as {@code user}: the first page is loaded with the credentials
     * in its URL, as a login; later pages are loaded without them, and the browser answers the realm's challenge
     * with what it kept (a page whose URL holds credentials may not fetch anything).
     */
    private static ChromeDriver logIn(String user) {
        ChromeOptions options = new ChromeOptions()
                .setBinary("/usr/bin/chromium")
                .addArguments(
                        "--headless=new",
                        "--no-sandbox",
                        "--disable-gpu",
                        "--disable-quic",
                        "--no-first-run",
                        "--disable-background-networking",
                        "--disable-component-update",
                        "--disable-sync",
                        "--window-size=1280,900");
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new java.io.File("/usr/bin/chromedriver"))
                .build();
        ChromeDriver driver = new ChromeDriver(service, options);
        driver.get(Http.server()
                .uri("console/")
                .toString()
                .replace("http://", "http://" + user + ":" + Http.password(user) + "@"));
        return driver;
    }

    private void open(String route) {
        browser.get(http.uri("console/" + route).toString());
        if (!browser.getCurrentUrl().contains(route)) {
            throw new AssertionError("not at " + route + ": " + browser.getCurrentUrl());
        }
    }

    /** The element, once there; else fails with what the page says went wrong. */
    private WebElement waitFor(By what) {
        try {
            return new WebDriverWait(browser, PATIENCE).until(ExpectedConditions.presenceOfElementLocated(what));
        } catch (org.openqa.selenium.TimeoutException e) {
            throw new AssertionError(
                    "no " + what + " at " + browser.getCurrentUrl() + "; the page says: "
                            + browser.findElement(By.tagName("body")).getText() + "\n" + browser.getPageSource(),
                    e);
        }
    }

    private void screenshot(String page) throws IOException {
        Files.createDirectories(SCREENSHOTS);
        Files.copy(
                browser.getScreenshotAs(OutputType.FILE).toPath(),
                SCREENSHOTS.resolve(page + ".png"),
                StandardCopyOption.REPLACE_EXISTING);
    }
}
