"""flask-smorest's private names: the documentation its decorators keep on a view (``_apidoc``) and the
Api's hooks that register the default components (``_register_responses``, ``_register_pagination_header``).

flask-smorest documents a view only through decorators that also wrap it, one more call per decorator on
every request, and it has no public setting for the components it registers by itself.
"""

from __future__ import annotations

import http
from collections.abc import Callable

from flask_smorest import Api as SmorestApi
from flask_smorest.spec import prepare_response

#: the attribute on which flask-smorest's decorators keep what they document (read by ``Blueprint.route``)
APIDOC = "_apidoc"


def documentation_only(func: Callable, *documenting: Callable) -> Callable:
    """Give ``func`` what flask-smorest's decorators ``documenting`` document, without their wrappers, which
    would otherwise run on every request."""
    documented = func
    for decorate in documenting:
        documented = decorate(documented)
    setattr(func, APIDOC, getattr(documented, APIDOC))
    return func


class Api(SmorestApi):
    """flask-smorest's Api documenting the error answers it describes by itself (a route's 422) in
    ``ERROR_CONTENT_TYPE``, and registering no pagination components (no route pages with its pagination)."""

    ERROR_CONTENT_TYPE = "application/json"

    def _register_responses(self) -> None:
        for status in http.HTTPStatus:
            if status >= 400:
                response = {"description": status.phrase, "schema": self.ERROR_SCHEMA}
                prepare_response(response, self.spec, self.ERROR_CONTENT_TYPE)
                self.spec.components.response(status.name, response, lazy=True)

    def _register_pagination_header(self) -> None:
        pass
