"""band dev's wire contract: the request bodies and queries each route accepts, the shapes it
answers, the error envelope, and the OpenAPI document built from them."""
