package dev.courier.reliable;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Locale;

/**
 * Where Courier may call a producer (its check-back and notification URLs). The host must be allowed by
 * {@code courier.reliable.allowed-url-hosts}; a plain {@code http} URL must name a host of
 * {@code courier.reliable.plain-http-hosts}; and unless the allow-list names that host itself, every address it
 * resolves to must be a public one: loopback, private, link-local (the cloud metadata address 169.254.169.254
 * among them), unique-local, benchmarking, reserved, NAT64, 6to4, Teredo and IPv4-compatible, multicast and
 * unspecified addresses are refused, so a
 * producer's registration cannot turn Courier's calls on its own network. Checked when a producer registers and
 * again before every call, and the call connects to the very address checked ({@link Target}): a name that
 * resolves to a public address for the check and to an internal one a moment later (DNS rebinding) reaches
 * nothing internal.
 */
final class CallTargets {

    private CallTargets() {}

    /** How a host name becomes addresses: the system's resolver, or a test's. */
    @FunctionalInterface
    interface Resolver {
        InetAddress[] resolve(String host) throws UnknownHostException;

        Resolver SYSTEM = InetAddress::getAllByName;
    }

    /** Courier may not call this URL; the message is a short sentence that echoes no address. */
    static final class Refused extends Exception {
        private static final long serialVersionUID = 1L;

        Refused(String why) {
            super(why);
        }
    }

    /**
     * A URL Courier may call, and the address checked for it, which the call connects to: {@link #connectTo} is
     * the URL with that address in place of the name, and {@link #hostHeader} the name it is sent under (the
     * {@code Host} header; for {@code https}, also the name sent by SNI and checked against the certificate).
     */
    record Target(URI url, InetAddress address) {

        URI connectTo() {
            String literal = address.getHostAddress();
            if (address instanceof Inet6Address) {
                int zone = literal.indexOf('%');
                literal = "[" + (zone < 0 ? literal : literal.substring(0, zone)) + "]";
            }
            return URI.create(url.getScheme() + "://" + literal + (url.getPort() == -1 ? "" : ":" + url.getPort())
                    + (url.getRawPath() == null ? "" : url.getRawPath())
                    + (url.getRawQuery() == null ? "" : "?" + url.getRawQuery()));
        }

        String hostName() {
            String host = url.getHost();
            return host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
        }

        String hostHeader() {
            return url.getHost() + (url.getPort() == -1 ? "" : ":" + url.getPort());
        }

        boolean secure() {
            return "https".equalsIgnoreCase(url.getScheme());
        }
    }

    /** Whether {@code host} (without brackets) is an address literal rather than a name. */
    static boolean isAddress(String host) {
        return host.indexOf(':') >= 0 || host.chars().allMatch(c -> c == '.' || Character.isDigit(c));
    }

    /** @return null when Courier may call {@code url}, else why not */
    static String refusal(URI url, List<String> allowedHosts, List<String> plainHttpHosts) {
        try {
            check(url, allowedHosts, plainHttpHosts, Resolver.SYSTEM);
            return null;
        } catch (Refused e) {
            return e.getMessage();
        }
    }

    /**
     * Checks {@code url} and resolves its host once. @return the target to connect to
     *
     * @throws Refused when Courier may not call it
     */
    static Target check(URI url, List<String> allowedHosts, List<String> plainHttpHosts, Resolver resolver)
            throws Refused {
        String host = url.getHost();
        if (host == null) {
            throw new Refused("the URL names no host");
        }
        String name = host.toLowerCase(Locale.ROOT);
        if (!host.startsWith("[") && !isAddress(host) && !validName(host)) {
            // a trailing dot, say: TLS could not send it by SNI, and the allow-list's suffixes would not match it
            throw new Refused("the URL's host is not a valid host name (letters, digits, hyphens and inner dots)");
        }
        if (!matches(name, allowedHosts)) {
            throw new Refused(
                    "the URL names a host that producers' URLs may not name (courier.reliable.allowed-url-hosts)");
        }
        if ("http".equalsIgnoreCase(url.getScheme()) && !matches(name, plainHttpHosts)) {
            throw new Refused("the URL is plain http, which crosses the network unencrypted: use https, or name the"
                    + " host in courier.reliable.plain-http-hosts to allow it");
        }
        boolean named = allowedHosts.stream().anyMatch(entry -> entry.trim().equalsIgnoreCase(name));
        InetAddress[] addresses;
        try {
            addresses = resolver.resolve(host.startsWith("[") ? host.substring(1, host.length() - 1) : host);
        } catch (UnknownHostException e) {
            throw new Refused("the URL's host does not resolve");
        }
        if (addresses.length == 0) {
            throw new Refused("the URL's host does not resolve");
        }
        if (!named) { // an operator who named this host allowed an internal producer of theirs
            for (InetAddress address : addresses) {
                if (internal(address)) {
                    throw new Refused("the URL's host resolves to a loopback, private, link-local or metadata"
                            + " address; name the host in courier.reliable.allowed-url-hosts to allow it");
                }
            }
        }
        return new Target(url, addresses[0]);
    }

    private static boolean validName(String host) {
        try {
            new javax.net.ssl.SNIHostName(host);
            return !host.endsWith(".");
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** Whether {@code name} is on a host list: "*", the name itself, or a suffix starting with a dot. */
    private static boolean matches(String name, List<String> hosts) {
        for (String entry : hosts) {
            String e = entry.trim().toLowerCase(Locale.ROOT);
            if (e.equals("*") || e.equals(name) || e.startsWith(".") && name.endsWith(e)) {
                return true;
            }
        }
        return false;
    }

    static boolean internal(InetAddress address) {
        byte[] b = address.getAddress();
        boolean v6 = address instanceof Inet6Address;
        boolean uniqueLocal = v6 && (b[0] & 0xfe) == 0xfc; // fc00::/7
        // 64:ff9b::/96 and 64:ff9b:1::/48 (NAT64) and 2002::/16 (6to4) carry an IPv4 address a gateway reaches
        boolean nat64 = v6 && b[0] == 0 && b[1] == 0x64 && (b[2] & 0xff) == 0xff && (b[3] & 0xff) == 0x9b;
        boolean sixToFour = v6 && b[0] == 0x20 && b[1] == 0x02;
        boolean teredo = v6 && b[0] == 0x20 && b[1] == 0x01 && b[2] == 0 && b[3] == 0; // 2001::/32
        boolean ipv4Compatible = v6 && java.util.Arrays.equals(b, 0, 12, new byte[12], 0, 12); // ::/96
        boolean v4 = b.length == 4;
        int first = b[0] & 0xff;
        int second = b[1] & 0xff;
        boolean thisNetwork = v4 && first == 0; // 0/8
        boolean shared = v4 && first == 100 && (second & 0xc0) == 64; // 100.64/10
        boolean benchmarking = v4 && first == 198 && (second & 0xfe) == 18; // 198.18/15
        boolean protocolAssignments = v4 && first == 192 && second == 0 && (b[2] & 0xff) == 0; // 192.0.0/24
        boolean reserved = v4 && first >= 240; // 240/4 and broadcast
        return address.isLoopbackAddress()
                || address.isAnyLocalAddress()
                || address.isLinkLocalAddress()
                || address.isSiteLocalAddress()
                || address.isMulticastAddress()
                || uniqueLocal
                || nat64
                || sixToFour
                || teredo
                || ipv4Compatible
                || protocolAssignments
                || reserved
                || thisNetwork
                || shared
                || benchmarking;
    }
}
