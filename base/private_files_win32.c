/* private_files_win32.c - files inherit their folder's ACL (private_files.h):
 * the service's install limits the data folder with mw_folder_private. */
#include "private_files.h"

#include <windows.h>
#include <aclapi.h>
#include <stdlib.h>

#include "utf8_wide.h"

void mw_files_private(void)
{
}

int mw_folder_private(const char *path, struct mw_err *err)
{
	BYTE admins[SECURITY_MAX_SID_SIZE], system[SECURITY_MAX_SID_SIZE];
	DWORD na = sizeof(admins), ns = sizeof(system), rc;
	EXPLICIT_ACCESSW ea[2];
	PACL acl = NULL;
	WCHAR *wpath;
	int i;

	if (!CreateWellKnownSid(WinBuiltinAdministratorsSid, NULL, admins, &na) ||
	    !CreateWellKnownSid(WinLocalSystemSid, NULL, system, &ns))
		return mw_error(err, "cannot make '%s' private: no well-known SIDs (error %lu)", path,
				GetLastError());
	ZeroMemory(ea, sizeof(ea));
	for (i = 0; i < 2; i++) {
		ea[i].grfAccessPermissions = GENERIC_ALL;
		ea[i].grfAccessMode = SET_ACCESS;
		ea[i].grfInheritance = SUB_CONTAINERS_AND_OBJECTS_INHERIT;
		ea[i].Trustee.TrusteeForm = TRUSTEE_IS_SID;
		ea[i].Trustee.TrusteeType = TRUSTEE_IS_WELL_KNOWN_GROUP;
		ea[i].Trustee.ptstrName = (LPWSTR)(i ? (void *)system : (void *)admins);
	}
	rc = SetEntriesInAclW(2, ea, NULL, &acl);
	if (rc != ERROR_SUCCESS)
		return mw_error(err, "cannot make '%s' private: SetEntriesInAcl error %lu", path, rc);
	wpath = mw_utf8_to_wide(path);
	if (!wpath) {
		LocalFree(acl);
		return mw_error(err, "cannot make '%s' private: not UTF-8", path);
	}
	/* PROTECTED: the entries of the folders above (Users: read) no longer
	 * reach it; its files inherit these two. */
	rc = SetNamedSecurityInfoW(wpath, SE_FILE_OBJECT,
				   DACL_SECURITY_INFORMATION | PROTECTED_DACL_SECURITY_INFORMATION,
				   NULL, NULL, acl, NULL);
	free(wpath);
	LocalFree(acl);
	if (rc != ERROR_SUCCESS)
		return mw_error(err, "cannot make '%s' private: SetNamedSecurityInfo error %lu", path,
				rc);
	return 0;
}
