# `make install PREFIX=...` (cmake --install): the kiln tool, its plugins, the public
# headers (the PJRT C API's among them), libkiln.so, a CMake package and a pkg-config file:
#   find_package(kiln) + target_link_libraries(app PRIVATE kiln::kiln)
#   g++ app.cc $(pkg-config --cflags --libs kiln)
# Everything goes under PREFIX/bin, lib and include: the tool and libkiln.so look for the
# plugins in PREFIX/lib (runtime/plugin_loader.cc), so the layout is fixed, not the
# distribution's multiarch one.
include(CMakePackageConfigHelpers)

install(TARGETS kiln_cli RUNTIME DESTINATION bin)
install(TARGETS kiln_plugin_cpu kiln_plugin_interp LIBRARY DESTINATION lib)
install(TARGETS kiln_shared EXPORT kilnTargets LIBRARY DESTINATION lib)
install(DIRECTORY include/kiln DESTINATION include)

install(EXPORT kilnTargets NAMESPACE kiln:: DESTINATION lib/cmake/kiln)
configure_package_config_file(cmake/kilnConfig.cmake.in ${CMAKE_BINARY_DIR}/kilnConfig.cmake
                              INSTALL_DESTINATION lib/cmake/kiln)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/kilnConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/kilnConfig.cmake ${CMAKE_BINARY_DIR}/kilnConfigVersion.cmake
        DESTINATION lib/cmake/kiln)

configure_file(cmake/kiln.pc.in ${CMAKE_BINARY_DIR}/kiln.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/kiln.pc DESTINATION lib/pkgconfig)
