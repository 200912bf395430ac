package dev.courier.reliable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.URI;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class CallTargetsTest {

    private static final List<String> ANY = List.of("*");
    private static final List<String> NONE = List.of();
    private static final List<String> LOCAL = List.of("localhost", "127.0.0.1");
    private static final InetAddress PUBLIC = address(93, 184, 215, 14);

    @Test
    void should_refuse_internal_addresses_a_wildcard_lets_through() {
        for (String url : new String[] {
            "http://127.0.0.1/cb",
            "http://localhost/cb",
            "http://169.254.169.254/latest/meta-data",
            "http://10.1.2.3/cb",
            "http://172.16.0.1/cb",
            "http://192.168.1.1/cb",
            "http://100.64.0.1/cb",
            "http://0.0.0.0/cb",
            "http://[::1]/cb",
            "http://[fd00:ec2::254]/cb",
            "http://[fe80::1]/cb",
            "http://[::ffff:127.0.0.1]/cb"
        }) {
            String refused = CallTargets.refusal(URI.create(url), ANY, ANY);
            assertNotNull(refused, url);
            assertTrue(refused.contains("allowed-url-hosts"), refused);
            assertFalse(refused.contains(URI.create(url).getHost()), "no address echoed: " + refused);
        }
    }

    @Test
    void should_take_a_public_address_and_an_internal_host_the_operator_named() {
        assertNull(CallTargets.refusal(URI.create("https://93.184.215.14/cb"), ANY, NONE));
        assertNull(CallTargets.refusal(URI.create("http://localhost:9080/cb"), LOCAL, LOCAL));
        assertNull(CallTargets.refusal(URI.create("http://127.0.0.1:9080/cb"), LOCAL, LOCAL));
        assertNotNull(
                CallTargets.refusal(URI.create("http://127.0.0.1/cb"), List.of(".example.com"), ANY),
                "not on the list");
    }

    @Test
    void should_class_addresses() throws Exception {
        assertTrue(CallTargets.internal(InetAddress.getByName("169.254.169.254")));
        assertTrue(CallTargets.internal(InetAddress.getByName("fc00::1")));
        assertFalse(CallTargets.internal(InetAddress.getByName("100.128.0.1")));
        assertFalse(CallTargets.internal(InetAddress.getByName("8.8.8.8")));
        assertFalse(CallTargets.internal(InetAddress.getByName("2001:4860:4860::8888")));
    }

    /** Each of these reaches an internal IPv4 address through a gateway, or is not for the internet at all. */
    @Test
    void should_class_nat64_6to4_and_benchmarking_addresses_as_internal() throws Exception {
        for (String internal : new String[] {
            "64:ff9b::a9fe:a9fe",
            "64:ff9b::7f00:1",
            "64:ff9b:1::a00:1",
            "2002:a9fe:a9fe::1",
            "198.18.0.1",
            "198.19.255.254"
        }) {
            assertTrue(CallTargets.internal(InetAddress.getByName(internal)), internal);
        }
        for (String internal :
                new String[] {"2001:0:4136:e378::1", "::7f00:1", "::a9fe:a9fe", "240.0.0.1", "192.0.0.8"}) {
            assertTrue(
                    CallTargets.internal(InetAddress.getByName(internal)),
                    internal); // Teredo, ::/96, 240/4, 192.0.0/24
        }
        assertFalse(CallTargets.internal(InetAddress.getByName("198.20.0.1")));
        assertFalse(CallTargets.internal(InetAddress.getByName("198.17.255.255")));
    }

    @Test
    void should_refuse_plain_http_unless_the_host_is_named_for_it() {
        String refused = CallTargets.refusal(URI.create("http://93.184.215.14/cb"), ANY, NONE);
        assertNotNull(refused);
        assertTrue(refused.contains("plain-http-hosts"), refused);
        assertNotNull(CallTargets.refusal(URI.create("http://localhost/cb"), LOCAL, List.of("127.0.0.1")));
        assertNull(CallTargets.refusal(URI.create("http://localhost/cb"), LOCAL, List.of("localhost")));
        assertNull(CallTargets.refusal(URI.create("HTTPS://localhost/cb"), LOCAL, NONE));
    }

    /**
     * DNS rebinding: the name answers a public address for the check and a loopback one a moment later. The name is
     * resolved once, and the call goes to the address checked, under the name.
     */
    @Test
    void should_resolve_once_and_connect_to_the_address_it_checked() throws Exception {
        AtomicInteger lookups = new AtomicInteger();
        CallTargets.Resolver rebinding =
                host -> new InetAddress[] {lookups.getAndIncrement() == 0 ? PUBLIC : InetAddress.getLoopbackAddress()};
        CallTargets.Target target =
                CallTargets.check(URI.create("https://producer.example:8443/cb/x%2Fy?id=1"), ANY, NONE, rebinding);
        assertEquals(1, lookups.get());
        assertEquals(PUBLIC, target.address());
        assertEquals(URI.create("https://93.184.215.14:8443/cb/x%2Fy?id=1"), target.connectTo());
        assertEquals("producer.example:8443", target.hostHeader());
        assertEquals("producer.example", target.hostName());

        CallTargets.Resolver internalFirst = host -> new InetAddress[] {PUBLIC, InetAddress.getLoopbackAddress()};
        CallTargets.Refused refused = assertThrows(
                CallTargets.Refused.class,
                () -> CallTargets.check(URI.create("https://producer.example/cb"), ANY, NONE, internalFirst));
        assertTrue(refused.getMessage().contains("loopback"), refused.getMessage());
    }

    /** A name TLS could not send by SNI (a trailing dot) is refused when checked, not thrown at the call. */
    @Test
    void should_refuse_a_host_name_tls_cannot_send() {
        CallTargets.Resolver any = host -> new InetAddress[] {PUBLIC};
        for (String url : new String[] {"https://producer.example./cb"}) {
            CallTargets.Refused refused = assertThrows(
                    CallTargets.Refused.class, () -> CallTargets.check(URI.create(url), ANY, NONE, any), url);
            assertTrue(refused.getMessage().contains("not a valid host name"), refused.getMessage());
        }
    }

    @Test
    void should_put_an_ipv6_address_in_brackets() throws Exception {
        InetAddress v6 = InetAddress.getByName("2001:4860:4860::8888");
        CallTargets.Target target =
                CallTargets.check(URI.create("https://producer.example/cb"), ANY, NONE, host -> new InetAddress[] {v6});
        assertEquals(URI.create("https://[2001:4860:4860:0:0:0:0:8888]/cb"), target.connectTo());
        assertEquals("producer.example", target.hostHeader());
    }

    private static InetAddress address(int a, int b, int c, int d) {
        try {
            return InetAddress.getByAddress(new byte[] {(byte) a, (byte) b, (byte) c, (byte) d});
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }
}
