"""Errors as the API answers them: JSON {"error": message, "field": name?}, never a stack trace.

Code anywhere in the web layer raises ApiError(status, message, field); anything else that
escapes a route is the portal's own fault: the client gets a generic 500 and the trace goes to
the server's log only.
"""
import logging

from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse

log = logging.getLogger("ferry_portal")


class ApiError(Exception):
    def __init__(self, status, message, field=None, headers=None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.field = field
        self.headers = headers


def error_response(status, message, field=None, headers=None):
    body = {"error": message}
    if field is not None:
        body["field"] = field
    return JSONResponse(body, status_code=status, headers=headers)


async def _api_error(request, exc):
    return error_response(exc.status, exc.message, exc.field, exc.headers)


async def _http_error(request, exc):
    # Starlette's own: unknown route (404), wrong method (405).
    messages = {404: f"no such page: {request.url.path}",
                405: f"{request.method} is not allowed on {request.url.path}"}
    return error_response(exc.status_code, messages.get(exc.status_code, str(exc.detail)),
                          headers=getattr(exc, "headers", None))


async def _internal_error(request, exc):
    log.error("internal error on %s %s", request.method, request.url.path, exc_info=exc)
    return error_response(500, "internal error in the portal; its log has the details")


HANDLERS = {ApiError: _api_error, HTTPException: _http_error, Exception: _internal_error}
