/*
 * os_windows_acl.h: who may write a state file on Windows, read off the
 * file's security descriptor, and the descriptor a new private file gets.
 * Part of os_windows_files.c, which alone includes it, after <windows.h>:
 * a header of static functions rather than a .c file so that
 * os_windows_files.c stays one job per screenful and nothing of it needs
 * a name outside that file.
 *
 * "Another user could write it" (os_posix.c reads it off a mode) is here:
 * the owner must be the caller, and every ACE that grants a right to
 * change the contents (or the DACL, or the owner) must name a trusted SID.
 * Trusted are the caller's own user, LocalSystem and BUILTIN\Administrators
 * (who can take any file, as root can write any file on POSIX) and OWNER
 * RIGHTS (the owner: the caller).  trust_group adds the local and domain
 * groups (S-1-5-21-...) enabled in the caller's token, and lets the owner
 * be someone else whom the DACL lets write: as POSIX then trusts a file of
 * another member of a group of ours.  Never trusted: the well-known groups
 * every user is in (Everyone, Authenticated Users, BUILTIN\Users, ...).
 * XXX: Windows cannot cheaply say whether that other owner is in one of our
 * groups (NetUserGetGroups would); the owner's implicit WRITE_DAC is the
 * trust trust_group gives.
 */
#ifndef MONOSTAMP_OS_WINDOWS_ACL_H
#define MONOSTAMP_OS_WINDOWS_ACL_H

/* The rights with which someone could change the sequence. */
#define WRITE_RIGHTS                                                            \
    (FILE_WRITE_DATA | FILE_APPEND_DATA | WRITE_DAC | WRITE_OWNER | GENERIC_WRITE | \
     GENERIC_ALL | MAXIMUM_ALLOWED)

/* What the caller is: its user and (for trust_group) its groups. */
struct caller {
    TOKEN_USER *user;
    TOKEN_GROUPS *groups;
};

static void *token_info(HANDLE token, TOKEN_INFORMATION_CLASS cls, int *rc)
{
    DWORD len = 0;
    void *buf;
    (void)GetTokenInformation(token, cls, NULL, 0, &len);
    if (len == 0) {
        *rc = monostamp__os_fail((int)GetLastError());
        return NULL;
    }
    if ((buf = malloc(len)) == NULL) {
        *rc = MONOSTAMP_ENOMEM;
        return NULL;
    }
    if (!GetTokenInformation(token, cls, buf, len, &len)) {
        *rc = monostamp__os_fail((int)GetLastError());
        free(buf);
        return NULL;
    }
    return buf;
}

/* The process's token: the state file belongs to the process, as on POSIX
 * (a thread impersonating another user does not change that). */
static int caller_get(struct caller *c)
{
    HANDLE token;
    int rc = MONOSTAMP_OK;
    c->user = NULL;
    c->groups = NULL;
    if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &token))
        return monostamp__os_fail((int)GetLastError());
    if ((c->user = token_info(token, TokenUser, &rc)) != NULL &&
        (c->groups = token_info(token, TokenGroups, &rc)) == NULL) {
        free(c->user);
        c->user = NULL;
    }
    CloseHandle(token);
    return rc;
}

static void caller_free(struct caller *c)
{
    free(c->user);
    free(c->groups);
}

static int is_well_known(PSID sid, WELL_KNOWN_SID_TYPE type)
{
    return IsWellKnownSid(sid, type) != 0;
}

/* A local or domain group (S-1-5-21-...), not a built-in or well-known
 * one, that is enabled in the caller's token. */
static int is_my_group(const struct caller *c, PSID sid)
{
    static const SID_IDENTIFIER_AUTHORITY nt = SECURITY_NT_AUTHORITY;
    PSID_IDENTIFIER_AUTHORITY auth = GetSidIdentifierAuthority(sid);
    if (memcmp(auth, &nt, sizeof nt) != 0 || *GetSidSubAuthorityCount(sid) < 1 ||
        *GetSidSubAuthority(sid, 0) != SECURITY_NT_NON_UNIQUE)
        return 0;
    for (DWORD i = 0; i < c->groups->GroupCount; i++) {
        const SID_AND_ATTRIBUTES *g = &c->groups->Groups[i];
        if ((g->Attributes & SE_GROUP_ENABLED) && !(g->Attributes & SE_GROUP_USE_FOR_DENY_ONLY) &&
            EqualSid(g->Sid, sid))
            return 1;
    }
    return 0;
}

static int sid_is_trusted(const struct caller *c, PSID sid, PSID owner, int trust_group)
{
    if (EqualSid(sid, c->user->User.Sid) || is_well_known(sid, WinLocalSystemSid) ||
        is_well_known(sid, WinBuiltinAdministratorsSid) ||
        is_well_known(sid, WinCreatorOwnerRightsSid))
        return 1;
    return trust_group && (EqualSid(sid, owner) || is_my_group(c, sid));
}

static int owner_is_safe(HANDLE h, int trust_group)
{
    PSID owner = NULL;
    PACL dacl = NULL;
    PSECURITY_DESCRIPTOR sd = NULL;
    struct caller c;
    int rc;

    DWORD err = GetSecurityInfo(h, SE_FILE_OBJECT,
                                OWNER_SECURITY_INFORMATION | DACL_SECURITY_INFORMATION, &owner,
                                NULL, &dacl, NULL, &sd);
    if (err != ERROR_SUCCESS)
        return monostamp__os_fail((int)err);
    if ((rc = caller_get(&c)) != MONOSTAMP_OK) {
        LocalFree(sd);
        return rc;
    }
    rc = MONOSTAMP_OK;
    if (owner == NULL || dacl == NULL) {
        rc = MONOSTAMP_EUNSAFE; /* no DACL: everyone has every right */
    } else if (!EqualSid(owner, c.user->User.Sid) && !trust_group) {
        rc = MONOSTAMP_EUNSAFE;
    } else {
        for (DWORD i = 0; i < dacl->AceCount && rc == MONOSTAMP_OK; i++) {
            ACE_HEADER *ace;
            if (!GetAce(dacl, i, (void **)&ace)) {
                rc = monostamp__os_fail((int)GetLastError());
                break;
            }
            if (ace->AceFlags & INHERIT_ONLY_ACE)
                continue; /* for files made in it later, not for this one */
            if (ace->AceType == ACCESS_DENIED_ACE_TYPE)
                continue; /* takes rights away: never unsafe */
            if (ace->AceType != ACCESS_ALLOWED_ACE_TYPE) {
                rc = MONOSTAMP_EUNSAFE; /* object, callback, ...: unread, so refused */
                break;
            }
            ACCESS_ALLOWED_ACE *allow = (ACCESS_ALLOWED_ACE *)ace;
            if ((allow->Mask & WRITE_RIGHTS) &&
                !sid_is_trusted(&c, (PSID)&allow->SidStart, owner, trust_group))
                rc = MONOSTAMP_EUNSAFE;
        }
    }
    caller_free(&c);
    LocalFree(sd);
    return rc;
}

/* A security descriptor that gives the caller alone every right, and
 * keeps the directory's inheritable ACEs out (the 0600 of os_posix.c).
 * With trust_group it is not used: the file takes the directory's
 * permissions, which is how a Windows group shares a folder. */
struct private_sd {
    SECURITY_DESCRIPTOR sd;
    TOKEN_USER *user;
    ACL *acl;
};

static int private_sd_make(struct private_sd *p)
{
    struct caller c;
    int rc = caller_get(&c);
    if (rc != MONOSTAMP_OK)
        return rc;
    free(c.groups);
    p->user = c.user;
    DWORD len = sizeof(ACL) + sizeof(ACCESS_ALLOWED_ACE) + GetLengthSid(p->user->User.Sid);
    if ((p->acl = malloc(len)) == NULL) {
        free(p->user);
        return MONOSTAMP_ENOMEM;
    }
    if (!InitializeAcl(p->acl, len, ACL_REVISION) ||
        !AddAccessAllowedAce(p->acl, ACL_REVISION, FILE_ALL_ACCESS, p->user->User.Sid) ||
        !InitializeSecurityDescriptor(&p->sd, SECURITY_DESCRIPTOR_REVISION) ||
        !SetSecurityDescriptorOwner(&p->sd, p->user->User.Sid, FALSE) ||
        !SetSecurityDescriptorDacl(&p->sd, TRUE, p->acl, FALSE) ||
        !SetSecurityDescriptorControl(&p->sd, SE_DACL_PROTECTED, SE_DACL_PROTECTED)) {
        rc = monostamp__os_fail((int)GetLastError());
        free(p->acl);
        free(p->user);
        return rc;
    }
    return MONOSTAMP_OK;
}

static void private_sd_free(struct private_sd *p)
{
    free(p->acl);
    free(p->user);
}

#endif
