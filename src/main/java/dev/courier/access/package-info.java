/**
 * Grants: which principals or groups may send to, or consume from, one queue or topic. A role
 * ({@link dev.courier.web.Roles}) decides which operations a caller may call at all; a grant on a queue or topic
 * narrows that further for the one resource. Without grants the role decides; an admin is never narrowed (an
 * admin may change the grants anyway). Application code in the server calls as {@link Caller#TRUSTED}.
 */
package dev.courier.access;
